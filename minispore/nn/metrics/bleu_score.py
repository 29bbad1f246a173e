"""`BleuScore`: the corpus BLEU score of tokenised translations against references."""
from collections import Counter

import numpy as np

from ..._validator import check_bool, check_int_range, check_type
from .metric import Metric, rearrange_inputs

__all__ = ["BleuScore"]


def _ngrams(tokens, n_gram):
    """Counts of every n-gram of `tokens`, n = 1 .. n_gram."""
    counts = Counter()
    for n in range(1, n_gram + 1):
        for start in range(len(tokens) - n + 1):
            counts[tuple(tokens[start:start + n])] += 1
    return counts


class BleuScore(Metric):
    """BLEU over every `update(candidate_corpus, reference_corpus)`: the geometric mean of the
    clipped n-gram precisions (n = 1 .. `n_gram`) times the brevity penalty
    `exp(1 - r / c)` when the candidates' length `c` is not above the closest references'
    length `r`. Each candidate is a list of tokens; each entry of `reference_corpus` is a list
    of references (token lists) for the candidate at the same position.

    Args:
        n_gram (int): the largest n-gram, 1 to 4. Default: 4.
        smooth (bool): add 1 to every precision's numerator and denominator. Default: False.

    Raises:
        TypeError: `n_gram` not an int, `smooth` not a bool.
        ValueError: `n_gram` outside [1, 4]; at `update`, not two inputs or corpora of
            different lengths.
        RuntimeError: `eval` before `update`.
    """

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        check_type(n_gram, int, "n_gram", "BleuScore")
        self.n_gram = check_int_range(n_gram, "n_gram", "BleuScore", 1, 4)
        self.smooth = check_bool(smooth, "smooth", "BleuScore")
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Add a corpus `(candidate_corpus, reference_corpus)`."""
        if len(inputs) != 2:
            raise ValueError(f"For 'BleuScore.update', it needs 2 inputs (candidate_corpus, "
                             f"reference_corpus), but got {len(inputs)}")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"For 'BleuScore.update', the candidate corpus and the reference "
                             f"corpus must have the same length, but got {len(candidates)} and "
                             f"{len(references)}")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            lengths = [len(ref) for ref in refs]
            gaps = [abs(len(candidate) - n) for n in lengths]
            self._r += lengths[gaps.index(min(gaps))]
            counts = _ngrams(candidate, self.n_gram)
            ref_counts = Counter()
            for ref in refs:
                ref_counts |= _ngrams(ref, self.n_gram)
            for gram, count in (counts & ref_counts).items():
                self._numerator[len(gram) - 1] += count
            for gram, count in counts.items():
                self._denominator[len(gram) - 1] += count
        self._is_update = True

    def eval(self):
        """The BLEU score (numpy float64; 0.0 when some order has no match)."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precisions = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precisions = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.log(precisions) / self.n_gram))
        if self._c > self._r:
            return np.float64(1.0) * geometric_mean
        return np.exp(1 - self._r / self._c) * geometric_mean
