"""Every widget, plot and static rendering of the packing algorithms."""
