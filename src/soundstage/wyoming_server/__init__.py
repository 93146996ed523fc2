"""Home Assistant's Wyoming protocol over the same accounts, services and credits
(`soundstage wyoming`)."""
