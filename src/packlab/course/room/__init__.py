"""The room, live: learners' checks counted on the hub, shown to the presenter as one chart.

`report` is the learner's side (stdlib only, in the student install): what a check sends and
when. `store` keeps the counts in SQLite; `service` is the JupyterHub service that takes the
reports and serves the chart; `hub` adds that service to a JupyterHub configuration.
"""
