"""The class's JupyterHub on one machine: its folders and Python environments (`layout`), the
learners' and instructors' system accounts from a roster (`accounts`), and starting it (`serve`).

hub/jupyterhub_config.py, in the checkout, is the hub's configuration; it reads the settings that
`serve` passes it in the environment (`layout.Hub.environment`).
"""
