"""The folder adapter: `kb render`, the core's bundle written to a folder for Zensical or any
generator that reads markdown. Imports no site generator."""
