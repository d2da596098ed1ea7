"""The store add-on of idmint: ``idmint_stores._native`` is idmint's native module built with
every store client (Redis, PostgreSQL, MySQL/MariaDB, SQLite, etcd, ZooKeeper, the idmint
service). Import ``idmint``, not this package: ``idmint`` uses this module when it is installed.
Installed with ``pip install 'idmint[stores]'``.
"""
