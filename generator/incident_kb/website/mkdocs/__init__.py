"""The MkDocs adapter (also ProperDocs, a drop-in fork of MkDocs 1.x): the `incident-kb` plugin,
the glue that puts the core's bundle into a build, the live preview of `mkdocs serve --dirty` and
what it keeps of Material's work, and Material's partials it overrides. The only part of the
package that imports MkDocs, Material, mkdocs-gen-files, watchdog or livereload."""
