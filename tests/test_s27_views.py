"""In-place changes of multi-output views (split/chunk/unbind) and of views taken under no_grad
or in inference mode: torch's refusals and messages (texts taken from torch 2.13)."""

import pytest

import minitorch as torch

MULTI = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one."
)
AMBIGUOUS = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the {block} block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)
BASE = "its base or another view of its base has been modified inplace"


def _x():
    return torch.arange(6.0).reshape(2, 3).requires_grad_() * 1


def _raises(fn, message):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize(
    "make, name, nr",
    [
        (lambda x: x.split(1), "Split", 0),
        (lambda x: x.chunk(2), "Split", 1),
        (lambda x: x.unbind(), "Unbind", 0),
        (lambda x: x.unbind(1), "Unbind", 2),
        (lambda x: x.split([1, 1]), "SplitWithSizes", 1),
        (lambda x: torch.split(x, 2), "Split", 0),  # a single piece: still refused
    ],
)
def test_inplace_on_a_multi_output_view_is_refused(make, name, nr):
    x = _x()
    piece = make(x)[nr]
    _raises(
        lambda: piece.add_(1),
        f"Output {nr} of {name} is a view and is being modified inplace. {MULTI}",
    )
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # nothing written


@pytest.mark.parametrize(
    "op",
    [
        lambda a: a.mul_(2),
        lambda a: a.zero_(),
        lambda a: a.copy_(torch.zeros(1, 3)),
        lambda a: a.squeeze_(0),
        lambda a: a.unsqueeze_(0),
        lambda a: a.transpose_(0, 1),
    ],
)
def test_every_inplace_kind_is_refused(op):
    a = _x().split(1)[0]
    _raises(lambda: op(a), f"Output 0 of Split is a view and is being modified inplace. {MULTI}")


def test_views_of_the_pieces_carry_the_refusal():
    a, _ = _x().split(1)
    c = a[0]
    _raises(
        lambda: c.add_(1), f"Output 0 of Select is a view and is being modified inplace. {MULTI}"
    )
    v = a.view(3)
    _raises(lambda: v.add_(1), f"Output 0 of View is a view and is being modified inplace. {MULTI}")

    def setitem():
        a[0, 0] = 5.0

    _raises(setitem, f"Output 0 of Select is a view and is being modified inplace. {MULTI}")


def test_a_piece_used_after_its_base_changed_is_refused():
    x = _x()
    a, b = x.split(1)
    x.add_(1)
    message = f"Output 1 of Split is a view and {BASE}. {MULTI}"
    _raises(lambda: b * 2, message)
    _raises(lambda: b.grad_fn, message)
    assert repr(b) == "tensor([[4., 5., 6.]], grad_fn=<Invalid>)"
    with torch.no_grad():  # no history read: allowed, as torch
        assert (b * 2).tolist() == [[8.0, 10.0, 12.0]]


def test_a_piece_of_a_leaf_gets_the_multi_output_message():
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    a, _ = x.split(1)
    _raises(
        lambda: a.add_(1), f"Output 0 of Split is a view and is being modified inplace. {MULTI}"
    )


def test_a_piece_of_a_tensor_without_grad_written_with_one_that_requires_grad():
    x = torch.arange(6.0).reshape(2, 3)
    a, _ = x.split(1)
    y = torch.ones(1, 3, requires_grad=True)
    _raises(
        lambda: a.add_(y),
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
        + MULTI,
    )


def test_what_stays_allowed():
    x = torch.arange(6.0).reshape(2, 3)  # nothing requires grad
    a, _ = x.split(1)
    a.add_(1)
    assert x.tolist() == [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    n = torch.arange(6).reshape(2, 3)  # integer pieces
    n.unbind()[1].add_(1)
    assert n.tolist() == [[0, 1, 2], [4, 5, 6]]
    x = _x()
    a, b = x.split(1)
    with torch.no_grad():  # in-place under no_grad
        a.add_(1)
    assert x.tolist() == [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    x = _x()
    with torch.no_grad():  # pieces taken and written under no_grad
        a, b = x.split(1)
        a.add_(1)
    assert x.tolist() == [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    x = _x()
    a, b = x.split(1)
    c = a.clone()
    c.add_(1)
    (b.sum() + c.sum()).backward()
    a.detach().add_(1)  # allowed, but b's history is now stale (torch's version counter)
    with pytest.raises(RuntimeError, match="Output 1 of Split is a view and its base"):
        b.sum()
    x = _x()
    pieces = x.unsafe_split(1)  # torch's unsafe_split: no view tracking
    pieces[0].add_(1)
    pieces[0].sum().backward()
    x = _x()
    first, second = x.tensor_split(2)  # slices, one op each
    first.add_(1)
    second.sum().backward()


def test_pieces_taken_under_no_grad_get_the_no_grad_message():
    x = _x()
    with torch.no_grad():
        a, _ = x.split(1)
    _raises(
        lambda: a.add_(1),
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
        + AMBIGUOUS.format(block="no_grad"),
    )


def test_views_taken_in_inference_mode_name_it():
    x = _x()
    with torch.inference_mode():
        a = x[0]
        b, _ = x.split(1)
    message = (
        "A view was created in inference mode and is being modified inplace in normal mode. "
        + AMBIGUOUS.format(block="inference_mode")
    )
    _raises(lambda: a.add_(1), message)
    _raises(lambda: b.add_(1), message)


@pytest.mark.parametrize(
    "mode, block, now",
    [
        (torch.no_grad, "no_grad", "with grad mode enabled"),
        (torch.inference_mode, "inference_mode", "in normal mode"),
    ],
)
def test_a_view_taken_without_grad_used_after_its_base_changed(mode, block, now):
    where = "no_grad mode" if block == "no_grad" else "inference mode"
    message = f"A view was created in {where} and {BASE} {now}. " + AMBIGUOUS.format(block=block)
    x = _x()
    with mode():
        a = x[0]
    x.add_(1)
    _raises(lambda: a * 2, message)
    assert repr(a) == "tensor([1., 2., 3.], grad_fn=<Invalid>)"
    p = torch.nn.Parameter(torch.arange(6.0).reshape(2, 3))
    with torch.no_grad():
        w = p[0]
    with torch.no_grad():  # an optimizer's step
        p.add_(1)
        assert (w * 2).tolist() == [2.0, 4.0, 6.0]  # no history read: allowed
    _raises(
        lambda: w * 2,
        message.replace("inference mode", "no_grad mode")
        .replace("in normal mode", "with grad mode enabled")
        .replace("inference_mode block", "no_grad block"),
    )


def test_a_view_without_grad_of_a_base_without_grad_stays_usable():
    x = torch.arange(6.0).reshape(2, 3)
    with torch.no_grad():
        a = x[0]
    x.add_(1)
    assert (a * 2).tolist() == [2.0, 4.0, 6.0]
    p = torch.nn.Parameter(torch.arange(3.0))
    d = p.detach()[0:2]
    p.data.add_(1)
    assert (d * 2).grad_fn is None
