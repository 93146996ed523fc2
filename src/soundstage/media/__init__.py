"""Audio I/O (decode, encode, probe, DSP), the bounds every input is checked against, and
fetching inputs from other servers safely: what features and engines share about media."""
