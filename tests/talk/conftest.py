from tests.talk.cli import fast_sandbox, talker

__all__ = ["fast_sandbox", "talker"]
