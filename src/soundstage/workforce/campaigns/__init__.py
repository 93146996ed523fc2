"""Campaign briefs: a buyer's casting call, answered with the best-matching talent."""
