"""agrieval-native: the compiled twin of agrieval's numpy CSV readers (optional).

``scoring.runtime.reading.native`` uses ``_reader`` when this package is installed;
without it the numpy readers do the same work, more slowly. See ``_reader.c``.
"""
