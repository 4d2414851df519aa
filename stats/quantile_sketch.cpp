#include "stats/quantile_sketch.h"
