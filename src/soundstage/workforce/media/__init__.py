"""Licensed media: the creator's media a completed license grants its buyer, while it runs."""
