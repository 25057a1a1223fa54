"""The Scenarios tab: run shipped or uploaded scenario files against the page's settings, read
the results, and look at any run's conversation; and open a downloaded conversation file.

`components` lays the tab out and wires it, `handlers` is what its events call, and `runs`
runs the files and makes what the table shows.
"""
