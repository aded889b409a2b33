"""Text from inputs (file names, run files, table cells) escaped for the format it lands in.

One module per format: ``terminal`` (one printable line), ``markdown`` (inline text that is never
markup), ``html`` (text and attribute values), ``plot`` (matplotlib labels with mathtext off).
Every sink of untrusted text goes through one of them. Stdlib only.
"""
