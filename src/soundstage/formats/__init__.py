"""File formats written without a service around them: Broadcast WAVE (`bwf`), AAF (`aaf`,
with `channels`), OMF (`omf`) and its Bento container (`bento`), the session they describe
(`session`) and SMPTE timecode (`timecode`). Below the features (the DAW export uses them);
they import no feature, engine or job system (import-linter checks it)."""
