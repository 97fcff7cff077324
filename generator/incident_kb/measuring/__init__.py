"""Measuring a knob: benchmark outputs read, runs grouped into sides and conditions."""
