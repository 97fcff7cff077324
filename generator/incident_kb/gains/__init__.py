"""Gain statistics: a measured gain's numbers and what they say (within noise, restore verified)."""
