"""An organisation's knowledge bases, seen together: which they are (the org site's configuration),
each read where it lies (a folder, or a git repository cloned into kb's cache), and all checked with
`NAME:ID` references resolved among them."""
