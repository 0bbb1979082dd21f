"""A trainable BERT in torch with Hugging Face parameter names, so a state dict saved
from it is a valid `BertForSequenceClassification` checkpoint for geoalign."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Layer(nn.Module):
    def __init__(self, h, heads, inner, dropout):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.attn_out, self.attn_norm = nn.Linear(h, h), nn.LayerNorm(h, eps=1e-12)
        self.inter, self.out, self.out_norm = nn.Linear(h, inner), nn.Linear(inner, h), nn.LayerNorm(h, eps=1e-12)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, additive_mask):
        n, length, h = x.shape
        d = h // self.heads

        def split(t):
            return t.view(n, length, self.heads, d).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        if hasattr(F, "scaled_dot_product_attention"):  # PyTorch 2's fused kernels, the same function
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask,
                                                 dropout_p=self.drop.p if self.training else 0.0)
        else:
            scores = q @ k.transpose(-1, -2) / math.sqrt(d) + additive_mask
            ctx = self.drop(scores.softmax(-1)) @ v
        ctx = ctx.transpose(1, 2).reshape(n, length, h)
        x = self.attn_norm(x + self.drop(self.attn_out(ctx)))
        return self.out_norm(x + self.drop(self.out(F.gelu(self.inter(x)))))


class Bert(nn.Module):
    def __init__(self, vocab, h=256, layers=4, heads=4, inner=1024, max_pos=128, labels=3, dropout=0.1):
        super().__init__()
        self.config = dict(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers, num_attention_heads=heads,
                           intermediate_size=inner, max_position_embeddings=max_pos, type_vocab_size=2)
        self.word, self.pos, self.token_type = nn.Embedding(vocab, h), nn.Embedding(max_pos, h), nn.Embedding(2, h)
        self.emb_norm = nn.LayerNorm(h, eps=1e-12)
        self.layers = nn.ModuleList(Layer(h, heads, inner, dropout) for _ in range(layers))
        self.pooler = nn.Linear(h, h)
        self.classifier = nn.Linear(h, labels)
        self.mlm_transform, self.mlm_norm = nn.Linear(h, h), nn.LayerNorm(h, eps=1e-12)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))
        self.drop = nn.Dropout(dropout)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def encode(self, ids, types, mask):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.drop(self.emb_norm(self.word(ids) + self.token_type(types) + self.pos(pos)))
        additive = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, additive)
        return x

    def classify(self, ids, types, mask):
        h = self.encode(ids, types, mask)
        return self.classifier(self.drop(torch.tanh(self.pooler(h[:, 0]))))

    def mlm_logits(self, hidden):
        t = self.mlm_norm(F.gelu(self.mlm_transform(hidden)).float())
        return t @ self.word.weight.t() + self.mlm_bias

    def hf_parameters(self):
        """Parameters under Hugging Face's BertForSequenceClassification names."""
        out = {}
        e = "bert.embeddings."
        out[e + "word_embeddings.weight"] = self.word.weight
        out[e + "position_embeddings.weight"] = self.pos.weight
        out[e + "token_type_embeddings.weight"] = self.token_type.weight
        out[e + "LayerNorm.weight"], out[e + "LayerNorm.bias"] = self.emb_norm.weight, self.emb_norm.bias
        for i, l in enumerate(self.layers):
            p = f"bert.encoder.layer.{i}."
            pairs = {"attention.self.query": l.query, "attention.self.key": l.key, "attention.self.value": l.value,
                     "attention.output.dense": l.attn_out, "attention.output.LayerNorm": l.attn_norm,
                     "intermediate.dense": l.inter, "output.dense": l.out, "output.LayerNorm": l.out_norm}
            for name, mod in pairs.items():
                out[p + name + ".weight"], out[p + name + ".bias"] = mod.weight, mod.bias
        out["bert.pooler.dense.weight"], out["bert.pooler.dense.bias"] = self.pooler.weight, self.pooler.bias
        out["classifier.weight"], out["classifier.bias"] = self.classifier.weight, self.classifier.bias
        return out

    def hf_state_dict(self):
        return {k: v.detach().float().contiguous().clone() for k, v in self.hf_parameters().items()}

    def load_hf(self, weights):
        """Loads a Hugging Face checkpoint's tensors (e.g. a previous models/default)."""
        with torch.no_grad():
            for name, param in self.hf_parameters().items():
                param.copy_(weights[name].float())


def pad_batch(encoded):
    """(ids, token types) per input, as the tokenizer gives them, to the padded (ids, types,
    attention mask) tensors that Bert takes."""
    length = max(len(ids) for ids, _ in encoded)
    ids = torch.zeros(len(encoded), length, dtype=torch.long)
    types = torch.zeros(len(encoded), length, dtype=torch.long)
    mask = torch.zeros(len(encoded), length)
    for i, (a, t) in enumerate(encoded):
        ids[i, :len(a)], types[i, :len(t)], mask[i, :len(a)] = torch.tensor(a), torch.tensor(t), 1
    return ids, types, mask
