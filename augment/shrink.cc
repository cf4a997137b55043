// Placeholder; implemented by the augment work.
