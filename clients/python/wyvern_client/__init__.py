"""A Wyvern client in Python (standard library only): the protocol codec generated from the
server's packet definitions, SRP-6a, and a TCP client with a world view and resume.

    from wyvern_client import Client
    c = Client.connect("127.0.0.1", 7777)
    c.hello(); c.login("ann", "secret-password"); ...

`python3 -m wyvern_client --help` runs the command-line client.
"""
