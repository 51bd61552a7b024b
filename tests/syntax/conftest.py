import pytest

from pipeline.syntax.parser import Parser
from pipeline.syntax.stage import SyntaxStage


@pytest.fixture(scope="session")
def parser() -> Parser:
    return Parser()


@pytest.fixture(scope="session")
def stage(parser) -> SyntaxStage:
    return SyntaxStage(parser=parser)
