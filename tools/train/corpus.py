"""The unlabelled and labelled training text that train.py and pretrain.py share.

Only training splits go in, so held-out pairs stay unseen even as masked-LM text."""
import dataclasses

import data
from synth import synthetic_addresses, synthetic_pairs


@dataclasses.dataclass
class TrainingCorpus:
    ccks_train: list
    shenzhen_train: list
    ner: list
    synthetic_addresses: list
    synthetic_pairs: list

    def real_addresses(self):
        rows = self.ccks_train + self.shenzhen_train
        return sorted({a for a, _, _ in rows} | {b for _, b, _ in rows})

    def mlm_singles(self):
        return self.ner + self.real_addresses() + self.synthetic_addresses

    def mlm_pairs(self):
        """Pairs as the fine-tuning will see them, labels dropped."""
        return [(a, b) for a, b, _ in self.ccks_train + self.shenzhen_train + self.synthetic_pairs]


def load(gaz, seed, n_synthetic_addresses, n_synthetic_pairs):
    return TrainingCorpus(
        ccks_train=data.load_pairs(data.CCKS, "train"),
        shenzhen_train=data.load_pairs(data.SHENZHEN, "train"),
        ner=data.ner_addresses(),
        synthetic_addresses=synthetic_addresses(n_synthetic_addresses, seed=seed, gaz=gaz),
        synthetic_pairs=synthetic_pairs(n_synthetic_pairs, seed=seed + 1, gaz=gaz))
