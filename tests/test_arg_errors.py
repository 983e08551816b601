"""The parser's TypeErrors for too many or too few positional arguments, in torch's words,
from the one helper every op that checks its own arguments raises them through."""

import pytest

import minitorch as torch
from minitorch._arg_errors import missing_positional, too_many_positional


@pytest.mark.parametrize(
    "args, text",
    [
        (("float", 1, 0), "float() takes 0 positional arguments but 1 was given"),
        (("view", 3, 1), "view() takes 1 positional argument but 3 were given"),
        (("renorm", 4, 3), "renorm() takes 3 positional arguments but 4 were given"),
        (("max", 4, 3, 2), "max() takes from 2 to 3 positional arguments but 4 were given"),
        # a required keyword-only argument: torch prints its counts as they come
        (("solve", 3, 2, 3), "solve() takes from 3 to 2 positional arguments but 3 were given"),
        (("sort", 4, 3, 3), "sort() takes 3 positional arguments but 4 were given"),
    ],
)
def test_too_many_positional_words(args, text):
    err = too_many_positional(*args)
    assert isinstance(err, TypeError) and str(err) == text


def test_missing_positional_says_arguments_for_one_and_argument_for_more():
    assert str(missing_positional("flip", "dims")) == (
        'flip() missing 1 required positional arguments: "dims"'
    )
    assert str(missing_positional("range", "start", "end")) == (
        'range() missing 2 required positional argument: "start", "end"'
    )


@pytest.mark.parametrize(
    "call, text",
    [
        (lambda x: x.float(None), "float() takes 0 positional arguments but 1 was given"),
        (lambda x: torch.flip(x), 'flip() missing 1 required positional arguments: "dims"'),
        (lambda x: x.cumsum(0, 1), "cumsum() takes 1 positional argument but 2 were given"),
        (lambda x: torch.cumsum(x), 'cumsum() missing 1 required positional arguments: "dim"'),
        (
            lambda x: torch.max(x, 0, True, 1),
            "max() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            lambda x: torch.linalg.solve_triangular(x, x, False),
            "linalg_solve_triangular() takes from 3 to 2 positional arguments but 3 were given",
        ),
        (
            lambda x: torch.dropout(x, 0.5, True, 1),
            "dropout() takes 3 positional arguments but 4 were given",
        ),
        (
            lambda x: torch.dropout(x),
            'dropout() missing 2 required positional argument: "p", "train"',
        ),
        (lambda x: x.softmax(), 'softmax() missing 1 required positional arguments: "dim"'),
        (
            lambda x: x.log_softmax(dtype=torch.float64),
            'log_softmax() missing 1 required positional arguments: "dim"',
        ),
        (
            lambda x: x.softmax(0, None, 1),
            "softmax() takes from 1 to 2 positional arguments but 3 were given",
        ),
        (
            lambda x: torch.nn.Linear(2, 2).to(1, 2, 3, 4, 5),
            "to() takes from 0 to 4 positional arguments but 5 were given",
        ),
    ],
)
def test_ops_raise_the_shared_words(call, text):
    x = torch.ones(2, 2)
    with pytest.raises(TypeError) as info:
        call(x)
    assert str(info.value) == text


@pytest.mark.parametrize(
    "call, text",
    [
        (lambda x, i, s: x.index_put_(values=s), '2 required positional argument: "indices", '),
        (lambda x, i, s: x.scatter_add_(index=i, src=s), '3 required positional argument: "dim"'),
        (lambda x, i, s: x.scatter_reduce(0, i, reduce="sum"), ': "src", "reduce"'),
        (lambda x, i, s: x.index_add_(dim=0, source=s), ': "index", "source"'),
        (lambda x, i, s: x.index_copy_(index=i, source=s), ': "dim", "index", "source"'),
        (lambda x, i, s: x.put_(source=s), ': "index", "source"'),
        (lambda x, i, s: x.index_reduce(0, i, reduce="prod"), ': "source", "reduce"'),
    ],
)
def test_a_method_missing_an_earlier_argument_names_it_and_the_rest(call, text):
    # a later argument given by keyword does not hide an earlier one left out
    x, i, s = torch.ones(3, 3), torch.tensor([0, 1]), torch.ones(2, 3)
    with pytest.raises(TypeError, match="missing .*" + text.replace("(", r"\(")):
        call(x, i, s)
