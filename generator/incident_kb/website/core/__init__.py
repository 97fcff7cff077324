"""The site's core, generator-neutral: the checked knowledge base in, a bundle of files and page
metadata out. Imports no site generator and no adapter; writes nothing."""
