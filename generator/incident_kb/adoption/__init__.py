"""`kb init`: a new knowledge base, or one beside a site a team already has."""
