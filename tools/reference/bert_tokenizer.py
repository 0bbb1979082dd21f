"""A pure-Python BertTokenizer, written from Hugging Face's documented behaviour, used as
the independent reference for geoalign's C++ tokenizer (Debian has no `transformers`).

It follows transformers' slow BertTokenizer step by step:
  1. added-token split: [UNK] [SEP] [PAD] [CLS] [MASK] written in the text stay tokens;
     with do_lower_case the rest is lowercased one character at a time first
     (PreTrainedTokenizer.tokenize does that with a regex);
  2. BasicTokenizer: clean (drop NUL, U+FFFD and category C*, whitespace -> ' '),
     surround CJK ideographs with spaces, NFC, split on str.isspace, lowercase and strip
     accents (NFD, drop Mn) per token, split off punctuation;
  3. WordPiece: greedy longest match, '##' continuations, [UNK] for words over 100 chars
     or with no full cover;
  4. pairs: [CLS] a [SEP] b [SEP], token_type_ids 0/1, longest_first truncation that
     drops one token at a time from the longer side (the second on ties).
"""
import json
import os
import unicodedata

SPECIAL_TOKENS = ["[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"]


def load_vocab(path):
    """As transformers' load_vocab: one token per line, a repeated token keeps its last id."""
    vocab = {}
    with open(path, encoding="utf-8") as f:
        for index, token in enumerate(f.readlines()):
            vocab[token.rstrip("\n")] = index
    return vocab


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def _is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def _strip_accents(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


class BertTokenizer:
    def __init__(self, vocab, do_lower_case=True, strip_accents=None, tokenize_chinese_chars=True,
                 max_input_chars_per_word=100):
        self.vocab = vocab
        self.do_lower_case = do_lower_case
        self.strip_accents = strip_accents
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.max_chars = max_input_chars_per_word

    @classmethod
    def from_folder(cls, folder):
        options = {}
        path = os.path.join(folder, "tokenizer_config.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                cfg = json.load(f)
            for key in ("do_lower_case", "strip_accents", "tokenize_chinese_chars"):
                if key in cfg:
                    options[key] = cfg[key]
        return cls(load_vocab(os.path.join(folder, "vocab.txt")), **options)

    def _split_special(self, text):
        pieces, start, i = [], 0, 0
        while i < len(text):
            match = next((t for t in SPECIAL_TOKENS if text.startswith(t, i)), None)
            if match is None:
                i += 1
                continue
            if i > start:
                pieces.append((text[start:i], False))
            pieces.append((match, True))
            i += len(match)
            start = i
        if start < len(text):
            pieces.append((text[start:], False))
        return pieces

    def _basic(self, text):
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue
            if _is_whitespace(ch):
                out.append(" ")
            elif self.tokenize_chinese_chars and _is_cjk(cp):
                out.append(" " + ch + " ")
            else:
                out.append(ch)
        text = unicodedata.normalize("NFC", "".join(out))
        tokens = []
        for token in text.split():
            if token in SPECIAL_TOKENS:
                tokens.append(token)
                continue
            if self.do_lower_case:
                token = token.lower()
                if self.strip_accents is not False:
                    token = _strip_accents(token)
            elif self.strip_accents:
                token = _strip_accents(token)
            current = ""
            for ch in token:
                if _is_punctuation(ch):
                    if current:
                        tokens.append(current)
                    current = ""
                    tokens.append(ch)
                else:
                    current += ch
            if current:
                tokens.append(current)
        return tokens

    def _wordpiece(self, word):
        if len(word) > self.max_chars:
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            end, match = len(word), None
            while end > start:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in self.vocab:
                    match = sub
                    break
                end -= 1
            if match is None:
                return ["[UNK]"]
            pieces.append(match)
            start = end
        return pieces

    def tokenize(self, text):
        tokens = []
        for piece, special in self._split_special(text):
            if special:
                tokens.append(piece)
                continue
            if self.do_lower_case:
                # The regex '.' in transformers' lowercasing step skips newlines.
                piece = "".join(c if c == "\n" else c.lower() for c in piece)
            for word in self._basic(piece):
                tokens.extend(self._wordpiece(word))
        return tokens

    def ids(self, tokens):
        unk = self.vocab["[UNK]"]
        return [self.vocab.get(t, unk) for t in tokens]

    def encode_pair(self, a, b, max_length=128):
        ids_a = self.ids(self.tokenize(a))
        ids_b = self.ids(self.tokenize(b))
        while len(ids_a) + len(ids_b) + 3 > max_length:
            if len(ids_a) > len(ids_b):
                ids_a.pop()
            else:
                ids_b.pop()
        cls, sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        input_ids = [cls] + ids_a + [sep] + ids_b + [sep]
        token_type_ids = [0] * (len(ids_a) + 2) + [1] * (len(ids_b) + 1)
        return input_ids, token_type_ids

    def encode_single(self, a, max_length=128):
        ids = self.ids(self.tokenize(a))[: max_length - 2]
        input_ids = [self.vocab["[CLS]"]] + ids + [self.vocab["[SEP]"]]
        return input_ids, [0] * len(input_ids)
