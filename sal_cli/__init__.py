"""``sal``: the command-line tool for sal-service, built on the generated client (``sal_client``)."""
