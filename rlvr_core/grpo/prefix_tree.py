"""Log-probs of G completions per prompt in one pass over each prompt's prefix tree.

`shared_prompt.py` runs each prompt and the tokens *all* its completions
start with once, then every completion from where it differs. Sampling hot,
one odd completion ("7 is the answer" among seven "#### 85") leaves no common
start, and every row recomputes its whole completion although most rows
share long prefixes with others. Here a group's completions form a tree
(a node per distinct prefix), each node is computed once, and the whole
tree is one sequence: the prompt, then the nodes, with an attention mask
that lets a node see only the prompt, its ancestors and itself, and position
ids that are each node's depth. So every node's hidden state is the one its
full row computes (the same keys, positions and causal order), its logits
predict the next token of every completion through it, and autograd sums
those completions' gradients into it: loss and gradients are those of the
full rows up to float rounding (`tests/grpo/test_prefix_tree.py`), as with
tree attention in speculative decoding or "prefix trees" for RL training.

The price is a dense [nodes, nodes] attention per group, which grows with
the square of a group's tokens while the saving grows linearly, and a mask
the model's attention kernel must accept (eager and sdpa; not flash kernels).
So it is taken only where it computes fewer tokens than the shared-prompt
passes and the tree stays short (`prefer_prefix_tree`): short completions
like tiny-arith's, where it also runs one pass instead of two.

Input and output keep the trainer's layout (`trainer.token_logprobs` with
`last=K`): rows left-padded to one right edge, and [B, K] log-probs of the
last K target columns (0 where a column holds a prompt token).
"""

from __future__ import annotations

import numpy as np
import torch

MAX_TREE_TOKENS = 256   # longest packed sequence (prompt + nodes) taken: its attention is [L, L] per head
KERNELS = ("eager", "sdpa")  # attention implementations that take an arbitrary 4D mask


class PrefixForest:
    """The prefix trees of a batch's groups: which sequence and column computes each completion token.

    Built from the trainer's padded arrays ([B, W] ids and mask, [B] prompt lengths). Sequence g is prompt g's
    tokens then its tree's nodes in order of creation (a parent before its children); `predictor[i][k]` is the
    column (of that sequence, left-padded to `width`) whose logits predict completion token k of row i.
    """

    def __init__(self, ids: np.ndarray, mask: np.ndarray, prompt_lengths: np.ndarray) -> None:
        width = ids.shape[1]
        starts = width - mask.sum(axis=1)
        self.group: list[int] = []                                  # [B] each row's sequence
        self.prompts: list[list[int]] = []                          # per sequence: prompt tokens
        self.nodes: list[list[tuple[int, int, int]]] = []           # per sequence: (token, parent node or -1, depth)
        index: dict[tuple[int, ...], int] = {}
        children: list[dict[tuple[int, int], int]] = []
        self.completions: list[list[int]] = []
        node_of: list[list[int]] = []                               # per row: node of each completion prefix
        for row, (start, length) in enumerate(zip(starts.tolist(), np.asarray(prompt_lengths).tolist())):
            prompt = ids[row, start:start + length].tolist()
            g = index.setdefault(tuple(prompt), len(index))
            if g == len(self.prompts):
                self.prompts.append(prompt)
                self.nodes.append([])
                children.append({})
            completion = ids[row, start + length:].tolist()
            node, path = -1, []
            for depth, token in enumerate(completion[:-1]):  # the last token is predicted, never an input
                parent, node = node, children[g].setdefault((node, token), len(self.nodes[g]))
                if node == len(self.nodes[g]):
                    self.nodes[g].append((token, parent, depth))
                path.append(node)
            self.group.append(g)
            self.completions.append(completion)
            node_of.append(path)
        self.width = max(len(p) + len(n) for p, n in zip(self.prompts, self.nodes))
        # Column of prompt g's last token, then of its node j: prompt_end[g] + 1 + j (left-padded sequences).
        prompt_end = [self.width - len(n) - 1 for n in self.nodes]
        self.predictor = [([prompt_end[self.group[row]]] + [prompt_end[self.group[row]] + 1 + j for j in path])
                          [:len(self.completions[row])] for row, path in enumerate(node_of)]

    @property
    def tokens(self) -> int:
        """Positions the packed pass computes (padding included)."""
        return len(self.prompts) * self.width

    def shared_pass_tokens(self) -> int:
        """Positions `shared_prompt_logprobs` computes for the same rows (padding included): one pass over every
        prompt and its group's common completion start, then each row from where its group's completions
        differ."""
        common = []
        for g in range(len(self.prompts)):
            rows = [c for row, c in enumerate(self.completions) if self.group[row] == g]
            shortest = min(len(c) for c in rows)
            same = next((k for k in range(shortest) if len({c[k] for c in rows}) > 1), shortest)
            common.append(same)
        prefix = max(len(p) + c for p, c in zip(self.prompts, common))
        own = max(max(len(c) - 1 - common[self.group[row]], 0) for row, c in enumerate(self.completions))
        return len(self.prompts) * prefix + len(self.completions) * own

    def inputs(self, device: torch.device, dtype: torch.dtype) -> dict[str, torch.Tensor]:
        """input_ids, position_ids [P, L] and the additive 4D attention mask [P, 1, L, L] of the packed pass."""
        sequences, width = len(self.prompts), self.width
        ids = np.zeros((sequences, width), dtype=np.int64)
        positions = np.zeros((sequences, width), dtype=np.int64)
        sees = np.zeros((sequences, width, width), dtype=bool)
        for g, (prompt, nodes) in enumerate(zip(self.prompts, self.nodes)):
            first = width - len(prompt) - len(nodes)
            p = len(prompt)
            ids[g, first:] = prompt + [token for token, _, _ in nodes]
            positions[g, first:first + p] = np.arange(p)
            sees[g, first:first + p, first:first + p] = np.tril(np.ones((p, p), dtype=bool))
            ancestry = np.zeros((len(nodes), len(nodes)), dtype=bool)   # [node, node]: ancestor or itself
            for j, (_, parent, depth) in enumerate(nodes):
                if parent >= 0:
                    ancestry[j] = ancestry[parent]
                ancestry[j, j] = True
                positions[g, first + p + j] = p + depth
            sees[g, first + p:, first:first + p] = True
            sees[g, first + p:, first + p:] = ancestry
            sees[g, np.arange(first), np.arange(first)] = True  # padding sees itself: no empty softmax row
        mask = torch.zeros(sees.shape, dtype=dtype).masked_fill_(torch.from_numpy(~sees), torch.finfo(dtype).min)
        return {"input_ids": torch.from_numpy(ids).to(device), "position_ids": torch.from_numpy(positions).to(device),
                "attention_mask": mask[:, None].to(device)}


def prefer_prefix_tree(model: torch.nn.Module, forest: PrefixForest) -> bool:
    """Whether the packed pass is the cheaper exact one: a mask kernel, a short tree, fewer tokens computed."""
    kernel = getattr(model.config, "_attn_implementation", None)
    return kernel in KERNELS and forest.width <= MAX_TREE_TOKENS and forest.tokens < forest.shared_pass_tokens()


def prefix_tree_logprobs(model: torch.nn.Module, forest: PrefixForest, last: int, device: torch.device) -> torch.Tensor:
    """[B, last] raw-model log-probs of the completion tokens, each prefix of each group computed once."""
    packed = forest.inputs(device, next(model.parameters()).dtype)
    keep = max(len(n) for n in forest.nodes) + 1       # every group's last prompt token and its nodes
    logits = model(**packed, logits_to_keep=keep).logits                                  # [P, keep, V]
    rows = np.repeat(np.arange(len(forest.group)), [len(c) for c in forest.completions])
    sequence = np.asarray(forest.group)[rows]
    column = np.concatenate([np.asarray(p) for p in forest.predictor]) - (forest.width - keep)
    target = np.concatenate([np.asarray(c) for c in forest.completions])
    k = np.concatenate([np.arange(len(c)) for c in forest.completions])
    picked = logits[torch.as_tensor(sequence, device=device), torch.as_tensor(column, device=device)].float()  # [N, V]
    values = picked.gather(1, torch.as_tensor(target, device=device)[:, None]).squeeze(1) - picked.logsumexp(dim=-1)
    lengths = np.array([len(c) for c in forest.completions])
    tail_column = last - lengths[rows] + k
    inside = tail_column >= 0
    out = values.new_zeros((len(forest.group), last))
    return out.index_put((torch.as_tensor(rows[inside], device=device), torch.as_tensor(tail_column[inside], device=device)),
                         values[torch.as_tensor(np.flatnonzero(inside), device=device)])
