"""A character-level LSTM that learns the Zen of Python, then samples text, with minitorch.

The text is the one `import this` prints, which ships with every Python (read from `this.s`, where
it is stored rot13-encoded, without printing it). An Embedding, a two-layer nn.LSTM and a Linear
head predict the next character; the loss is printed after every epoch, and after training the
model samples new text one character at a time with a temperature.

    python examples/char_lstm.py [--epochs 40] [--temperature 0.7] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import io
import time

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.utils.data import DataLoader, TensorDataset


def zen_of_python():
    with contextlib.redirect_stdout(io.StringIO()):  # importing `this` prints the Zen
        import this
    return codecs.decode(this.s, "rot13")


def make_windows(ids, seq_len, stride):
    """Overlapping (input, target) windows: the target is the input shifted by one character."""
    starts = range(0, len(ids) - seq_len - 1, stride)
    x = torch.stack([ids[s : s + seq_len] for s in starts])
    y = torch.stack([ids[s + 1 : s + seq_len + 1] for s in starts])
    return TensorDataset(x, y)


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed=32, hidden=128, num_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


def sample(model, chars, prompt, length, temperature, generator, device):
    """Feed the prompt, then draw each next character from softmax(logits / temperature)."""
    index = {c: i for i, c in enumerate(chars)}
    model.eval()
    text = prompt
    with torch.no_grad():
        x = torch.tensor([[index[c] for c in prompt]], device=device)
        logits, state = model(x)
        for _ in range(length):
            probs = F.softmax(logits[0, -1] / temperature, dim=-1).cpu()
            nxt = torch.multinomial(probs, 1, generator=generator).item()
            text += chars[nxt]
            logits, state = model(torch.tensor([[nxt]], device=device), state)
    model.train()
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seq-len", type=int, default=48)
    parser.add_argument("--stride", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-3)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--sample-length", type=int, default=300)
    parser.add_argument("--prompt", default="Beautiful ")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    text = zen_of_python()
    chars = sorted(set(text))
    ids = torch.tensor([chars.index(c) for c in text], dtype=torch.int64)
    data = make_windows(ids, args.seq_len, args.stride)
    loader = DataLoader(
        data,
        batch_size=args.batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(args.seed),
    )
    model = CharLSTM(len(chars)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    print(f"{len(text)} characters, {len(chars)} distinct, {len(data)} windows")

    start = time.perf_counter()
    losses = []
    for epoch in range(1, args.epochs + 1):
        total, count = 0.0, 0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits, _ = model(x)
            loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += loss.item() * len(y)
            count += len(y)
        losses.append(total / count)
        print(f"epoch {epoch:3d}  loss {losses[-1]:.4f}  ({time.perf_counter() - start:.0f} s)")

    gen = torch.Generator().manual_seed(args.seed)
    text = sample(model, chars, args.prompt, args.sample_length, args.temperature, gen, device)
    print(f"--- sample (temperature {args.temperature}) ---")
    print(text)
    print(f"trained in {time.perf_counter() - start:.1f} s")
    return losses


if __name__ == "__main__":
    main()
