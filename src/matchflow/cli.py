"""Command-line interface (being written)."""


def main(argv=None) -> int:
    raise NotImplementedError
