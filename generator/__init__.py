"""incident-kb: knobs and incidents as records, checked and rendered into a site."""
