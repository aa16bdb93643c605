"""Roles: a table's cell roles read as the dict they replace, with data rows held compactly."""

from __future__ import annotations

import pytest

from ingest.roles import Roles


def test_roles_read_and_write_as_a_dict_does():
    roles, mirror = Roles(), {}
    for key, role in [((1, 1), "title"), ((2, 1), "header"), ((3, 2), "data")]:
        roles[key] = mirror[key] = role
    roles.add_data_row(4, [2, 3])
    mirror.update({(4, 2): "data", (4, 3): "data"})
    assert dict(roles.items()) == mirror and len(roles) == 5
    assert roles[(4, 3)] == "data" and (4, 3) in roles and (4, 1) not in roles
    assert roles.get((4, 1)) is None and roles.get((4, 1), "x") == "x"
    with pytest.raises(KeyError):
        roles[(9, 9)]
    assert roles.setdefault((4, 2), "header") == "data"  # a data cell keeps its role
    roles[(4, 2)] = "header"  # until it is told another
    assert roles[(4, 2)] == "header" and roles.data_cols(4) == {3}
    del roles[(4, 3)]
    assert (4, 3) not in roles and roles.data_cols(4) == frozenset()
    del roles[(1, 1)]
    assert dict(roles) == {(2, 1): "header", (3, 2): "data", (4, 2): "header"}


def test_rows_with_the_same_data_columns_share_one_set():
    roles = Roles()
    for r in range(3, 1003):
        roles.add_data_row(r, range(2, 52))
    assert len(roles) == 50_000 and len({id(cols) for cols in roles.data_rows.values()}) == 1
    roles.add_data_row(3, [60])  # a row's columns grow without touching the others'
    assert 60 in roles.data_cols(3) and 60 not in roles.data_cols(4)
    assert roles.explicit == {}
