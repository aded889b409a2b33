"""The one exception of the "exact or refused" rule (``aggregate``, ``image_stats``)."""


class NotExact(ValueError):
    """The saved tile scores cannot give this aggregation exactly; the message says what to save."""
