"""YAML that remembers where each key was written, so a mistake is reported with its line, and
that refuses documents whose aliases would expand past a bound ("billion laughs")."""

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


class TooLarge(ValueError):
    """A document whose values, aliases expanded, number more than a scenario file needs."""


class _Loader(yaml.CSafeLoader):
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


def load_yaml(text: str, max_values: int, max_depth: int = 32) -> Any:
    """The document in `text` (YAML, or JSON, which YAML reads too). Raises `yaml.YAMLError`,
    or `TooLarge` when it holds more than `max_values` values once its aliases are expanded,
    or nests deeper than `max_depth`: seven levels of nine-fold aliases are 614 bytes and 40
    million values, which everything after the parser (validation, the run, the results file)
    would walk one by one, and a few hundred brackets exhaust Python's recursion."""
    # A SafeLoader subclass: plain data only, no Python objects.
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as exc:
            raise _worded(text) or exc from None
        if node is None:
            return None
        values, depth = _expanded_size(node)
        if depth > max_depth:
            raise TooLarge(f"nests {depth} levels deep, more than the {max_depth} allowed")
        if values > max_values:
            raise TooLarge(
                f"holds {values:,} values (with any aliases written out), more than the "
                f"{max_values:,} a scenario file may have"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _worded(text: str) -> yaml.YAMLError | None:
    """The error of the pure-Python parser for a document libyaml refused: it says what it
    found ("but got '<stream end>'") where libyaml says only what it missed. Only composed,
    never constructed, so its aliases are not expanded; the text is already bounded."""
    loader = yaml.SafeLoader(text)
    try:
        loader.get_single_node()
    except yaml.YAMLError as exc:
        return exc
    except RecursionError:  # nesting libyaml refused already, with its own words
        return None
    finally:
        loader.dispose()
    return None


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """How many values `root` stands for with every alias written out, and how deep it nests.
    Without recursion (the depth is what is being measured), and linear in the nodes: a shared
    node's count is worked out once and then added once per use. A node that holds itself
    (`&a [*a]`) is infinite, and `TooLarge`."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        children = _children(node)
        if children_done:
            size[id(node)] = 1 + sum(size[id(c)] for c in children)
            depth[id(node)] = 1 + max((depth[id(c)] for c in children), default=0)
            open_nodes.discard(id(node))
            continue
        if id(node) in size:
            continue
        if id(node) in open_nodes:
            raise TooLarge("has an alias that refers to a value containing itself")
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)
    return size[id(root)], depth[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


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
