"""Studios marketplace: the studio catalog, discovery, availability, bookings with the 2.5%
platform fee."""
