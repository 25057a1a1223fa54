"""YAML that remembers where each key was written, so a mistake is reported with its line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml


class LineDict(dict):
    """A mapping read from a file: `line` of its first key, `key_lines` of every key (1-based)."""

    line: int = 0
    key_lines: dict[Any, int]


class LineList(list):
    """A sequence read from a file: `item_lines` of each item (1-based)."""

    line: int = 0
    item_lines: list[int]


class _Loader(yaml.SafeLoader):
    """Safe YAML whose mappings are `LineDict`s; a key written twice is an error, since YAML
    would otherwise keep the last one silently and a scenario would test less than it says."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        self.flatten_mapping(node)
        mapping = LineDict()
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in mapping.key_lines:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice", key_node.start_mark
                )
            mapping[key] = self.construct_object(value_node, deep=deep)
            mapping.key_lines[key] = line
        return mapping

    def construct_sequence(self, node: yaml.SequenceNode, deep: bool = False) -> LineList:
        items = LineList(self.construct_object(child, deep=deep) for child in node.value)
        items.line = node.start_mark.line + 1
        items.item_lines = [child.start_mark.line + 1 for child in node.value]
        return items


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _Loader.construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _Loader.construct_sequence)


def load_yaml(text: str) -> Any:
    """The document in `text` (YAML, or JSON, which YAML reads too). Raises `yaml.YAMLError`."""
    # A SafeLoader subclass: plain data only, no Python objects.
    return yaml.load(text, Loader=_Loader)


def line_of(data: Any, loc: Sequence[Any]) -> int | None:
    """The line of the key at `loc` (a pydantic error location) in `data`; when the key is not
    there (a missing key), the line of the mapping that should hold it."""
    line = getattr(data, "line", None) or None
    node = data
    for part in loc:
        if isinstance(node, LineDict):
            if part not in node:
                return node.line or line
            line = node.key_lines.get(part, line)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            if isinstance(node, LineList):
                line = node.item_lines[part]
            node = node[part]
        else:
            break
    return line
