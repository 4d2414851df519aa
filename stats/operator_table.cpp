#include "stats/operator_table.h"
