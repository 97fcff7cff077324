"""Deploy files: what a deploy file sets a knob to, and whether that agrees with the record."""
