"""Voice isolation engines behind one Protocol, chosen by name through the registry: a mixture
split into the voice and the rest."""
