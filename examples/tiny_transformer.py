"""A tiny decoder-only transformer that learns to sort short digit sequences, with minitorch.

Each training sequence is `d1 .. dn SEP s1 .. sn`: n random digits, a separator, then the same
digits sorted. A causal nn.TransformerEncoder (the mask from
nn.Transformer.generate_square_subsequent_mask) predicts every next token; the loss counts only
the sorted half. Accuracy is measured by greedy decoding on held-out sequences: the fraction of
sequences sorted entirely right, and of output digits right. Synthetic data, no download.

    python examples/tiny_transformer.py [--steps 1000] [--length 6] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F

SEP = 10  # token ids 0..9 are the digits
VOCAB = 11


def make_batch(batch_size, length, generator, device):
    digits = torch.randint(0, 10, (batch_size, length), generator=generator)
    ordered = torch.sort(digits, dim=1).values
    sep = torch.full((batch_size, 1), SEP, dtype=torch.int64)
    return torch.cat([digits, sep, ordered], dim=1).to(device)


class TinyDecoder(nn.Module):
    def __init__(self, max_len, d_model=64, nhead=4, num_layers=2, dim_feedforward=128):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, nhead, dim_feedforward, dropout=0.0, batch_first=True, norm_first=True
        )
        self.blocks = nn.TransformerEncoder(layer, num_layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, VOCAB)

    def forward(self, tokens):
        n = tokens.shape[1]
        positions = torch.arange(n, device=tokens.device)
        h = self.tok(tokens) + self.pos(positions)
        mask = nn.Transformer.generate_square_subsequent_mask(n, device=tokens.device)
        h = self.blocks(h, mask=mask, is_causal=True)
        return self.head(self.norm(h))


def sequence_loss(model, seq, length):
    logits = model(seq[:, :-1])
    # positions length .. 2*length-1 of the input predict the sorted digits
    out = logits[:, length:]
    return F.cross_entropy(out.reshape(-1, VOCAB), seq[:, length + 1 :].reshape(-1))


def evaluate(model, seq, length):
    """Greedy decoding from the unsorted digits and the separator."""
    model.eval()
    with torch.no_grad():
        tokens = seq[:, : length + 1]
        for _ in range(length):
            nxt = model(tokens)[:, -1].argmax(dim=-1, keepdim=True)
            tokens = torch.cat([tokens, nxt], dim=1)
        right = tokens[:, length + 1 :] == seq[:, length + 1 :]
        seq_acc = right.all(dim=1).float().mean().item()
        digit_acc = right.float().mean().item()
    model.train()
    return seq_acc, digit_acc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--length", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    gen = torch.Generator().manual_seed(args.seed)
    test = make_batch(500, args.length, torch.Generator().manual_seed(args.seed + 1), device)
    model = TinyDecoder(max_len=2 * args.length + 1).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 100) * max(0.05, 1 - step / args.steps)
    )
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{n_params} parameters, sorting {args.length} digits")

    start = time.perf_counter()
    losses = []
    seq_acc = digit_acc = 0.0
    for step in range(1, args.steps + 1):
        seq = make_batch(args.batch_size, args.length, gen, device)
        loss = sequence_loss(model, seq, args.length)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        sched.step()
        losses.append(loss.item())
        if step % args.eval_every == 0 or step == args.steps:
            seq_acc, digit_acc = evaluate(model, test, args.length)
            recent = sum(losses[-50:]) / len(losses[-50:])
            print(
                f"step {step:5d}  loss {recent:.4f}  sequences sorted {seq_acc:.1%}  "
                f"digits right {digit_acc:.1%}  ({time.perf_counter() - start:.0f} s)"
            )
    example = test[:1, : args.length + 1]
    with torch.no_grad():
        model.eval()
        for _ in range(args.length):
            example = torch.cat([example, model(example)[:, -1].argmax(-1, keepdim=True)], dim=1)
    shown = example[0].tolist()
    print(f"example: {shown[: args.length]} -> {shown[args.length + 1 :]}")
    print(f"trained in {time.perf_counter() - start:.1f} s")
    return {"loss": losses, "seq_acc": seq_acc, "digit_acc": digit_acc}


if __name__ == "__main__":
    main()
