"""LoopAgent: answers factual questions about Chinese policy documents, and proves every answer.

    from pipeline import KnowledgeBase
    kb = KnowledgeBase("kb.sqlite")
    kb.ingest(["examples/docs"])
    print(kb.ask("年休假有几天？").to_dict())
"""
__version__ = "0.1.0"  # the one place the version is written (pyproject reads it)

from .config import Settings
from .errors import LoopAgentError
from .kb import IngestReport, KnowledgeBase
from .types import Answer, Block, Document, Evidence, Sentence, Value

__all__ = ["KnowledgeBase", "IngestReport", "Answer", "Evidence", "Document", "Block", "Sentence", "LoopAgentError",
           "Settings", "Value", "__version__"]
