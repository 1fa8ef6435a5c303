// Placeholder until the IR helper lands this file.
