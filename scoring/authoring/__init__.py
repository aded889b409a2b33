"""For organizers and competition authors: definitions validated from TOML, JSON Schemas, platform bundles.

Nothing here runs during a grading: it prepares what the runtime
(``scoring/runtime/``) executes.
"""
