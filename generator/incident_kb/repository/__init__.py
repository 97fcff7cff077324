"""Repository access: every look at a file of the knowledge base (bounded, inside it) and every write."""
