// Placeholder until the generator lands; replaced by its owner.
