"""Speech naturalness predictors: the mean opinion score (1 to 5) listeners would give a
recording, predicted with no reference, as bench/voice_quality.py measures every catalog voice."""
