"""What the learned-model tests share: where the committed models are, and the sentences a reader types."""

from __future__ import annotations

from repository import ROOT

from qkv.learning import referent_sentences as r
from qkv.learning import sentences as s
from qkv_site.project import RESULTS_DIR

RESULTS = ROOT / RESULTS_DIR  # the committed learned models, which the build exports beside the learned-attention page


def sentences() -> list[tuple[str, str, str]]:
    """(task, sentence, what training saw of it): the article's pair, held-out and training sentences of both
    tasks (their split as qkv.learning makes it), and forms of the reader's own."""
    held, train = s.corpus(heldout=True).text, s.corpus(heldout=False).text
    ref_held, ref_train = r.corpus(heldout=True), r.corpus(heldout=False).sentences.text
    chosen = [("coreference", x, "triple") for x in (s.ARTICLE_SENTENCE, s.ARTICLE_TWIN, *held[::97])]
    chosen += [("coreference", x, "train") for x in train[::613]]
    chosen += [("coreference", "it was too icy because the goat didn't cross the bridge", "other")]
    chosen += [("referent", x, "other") for x in r.PROBES]  # two nouns, no object: in neither set
    chosen += [("referent", x, "train") for x in ref_train[::1499]]
    chosen += [("referent", ref_held.sentences.text[i], kind) for kind in ("referent", "pair", "both")
               for i in [j for j, k in enumerate(ref_held.kinds) if k == kind][:3]]
    chosen += [("referent", "the box and the dog stayed on the road because it was too fragile", "other")]
    return chosen
