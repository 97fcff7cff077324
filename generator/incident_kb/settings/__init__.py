"""The settings: read once from the repository's configuration files, validated once."""
