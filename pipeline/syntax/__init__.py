"""Stage 2: dependency-pattern sentence selection with the shipped Chinese parser.

``SyntaxStage(settings).run(query, candidates)`` returns 1-3 :class:`~pipeline.types.Anchor`;
see stage.py for scoring, parser.py for the model, patterns.py for rules/dep_patterns.yaml.
"""
from .parser import Parser, default_parser
from .patterns import PatternSet, load_patterns
from .stage import SyntaxSettings, SyntaxStage, anchors_trace

__all__ = ["Parser", "default_parser", "PatternSet", "load_patterns", "SyntaxSettings", "SyntaxStage",
           "anchors_trace"]
