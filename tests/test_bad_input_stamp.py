"""Bad-input suite of icml25.stamp and icml25.stamp.llm (see badinput.py)."""

from functools import cache

import numpy as np
from badinput import (
    Spec,
    bad_array,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_positive,
    bad_probability,
    bad_real,
    bad_seed,
    build_tiny_chat_lm,
    good_input_test,
    not_a,
    not_int,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25 import stamp
from icml25.stamp import llm

P = "icml25.stamp"
G = stamp.make_synonym_grammar(5, 3)  # 5 groups of 3 synonyms: ids 1..15, vocabulary 16
TEMPLATES = np.array([[0, 4, 2], [1, 1, 3]])
TOKENS = np.array([3, 15, 1])
VERSIONS = np.stack([TEMPLATES + 1, TEMPLATES + 5, TEMPLATES + 9])  # (3 versions, 2 items, 3)
PUB = np.array([5.0, 6.0, 7.0, 8.0])
PRIV = np.array([[6.0, 7.0], [7.5, 8.0], [7.0, 9.0], [9.0, 9.5]])
BAD_GAMMA = bad_probability(low_open=True, high_open=True)
BAD_DELTA = bad_real(0.0)
BAD_GRAMMAR = not_a((5, 3), {"n_groups": 5})
ITEMS = ["w3 w4", "w10 w11"]
LOGP = np.log(np.array([[0.5, 0.25, 0.1], [0.9, 0.3, 0.6]]))
BAD_LOGP = st.one_of(bad_array(LOGP), st.just(-LOGP), st.just(LOGP[0]))
BAD_LEVEL = bad_probability(low_open=True, high_open=True)


@cache
def _tiny_lm():
    from icml25.common.lm import build_causal_lm

    return build_causal_lm(16, n_positions=8, n_layer=1, n_embd=8, n_head=2, seed=0)


@cache
def _chat():
    return build_tiny_chat_lm()


class _Encoder:
    """A stand-in sentence encoder: unit bag-of-letters vectors."""

    def encode(self, texts, normalize_embeddings=True):
        out = np.array([[t.count(c) + 1.0 for c in "w0123456789 "] for t in texts])
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _lm(**kw):
    model, tok = _chat()
    return {"model": model, "tokenizer": tok, "texts": ITEMS, **kw}


LM_BAD = {
    "model": not_a(),
    "tokenizer": st.sampled_from([None, 3]),
    "texts": st.sampled_from(["w3", [], [""], None, [3]]),
}

SPECS: dict[str, Spec] = {
    f"{P}.Grammar": Spec(
        stamp.Grammar, {"n_groups": 5, "n_syn": 3}, {"n_groups": bad_int(1), "n_syn": bad_int(2)}
    ),
    f"{P}.Grammar.synonyms": Spec(
        stamp.Grammar.synonyms, {"self": G, "group": 4}, {"group": bad_int(0, 4)}, free=("self",)
    ),
    f"{P}.make_synonym_grammar": Spec(
        stamp.make_synonym_grammar,
        {"n_groups": 5, "n_syn": 3},
        {"n_groups": bad_int(1), "n_syn": bad_int(2)},
    ),
    f"{P}.sample_templates": Spec(
        stamp.sample_templates,
        {"grammar": G, "n": 2, "length": 3, "zipf_a": 0.8, "seed": 0},
        {
            "grammar": BAD_GRAMMAR,
            "n": bad_int(1),
            "length": bad_int(1),
            "zipf_a": bad_real(),
            "seed": bad_seed(),
        },
        good={"zipf_a": st.floats(-20, 20), "seed": st.integers(0, 2**64 - 1)},
        finite=True,
    ),
    f"{P}.kgw_green_mask": Spec(
        stamp.kgw_green_mask,
        {"prev_token": 0, "key": 5, "vocab_size": 16, "gamma": 0.25},
        {
            "prev_token": bad_int(0, 15),
            "key": not_int(),
            "vocab_size": bad_int(2),
            "gamma": BAD_GAMMA,
        },
    ),
    f"{P}.watermarked_rephrase": Spec(
        stamp.watermarked_rephrase,
        lambda: {
            "template": TEMPLATES[0],
            "grammar": G,
            "key": 5,
            "delta": 1.0,
            "gamma": 0.25,
            "rng": np.random.default_rng(0),
        },
        {
            "template": st.one_of(bad_index_array(TEMPLATES[0], 5), st.just(TEMPLATES)),
            "grammar": BAD_GRAMMAR,
            "key": not_int(),
            "delta": BAD_DELTA,
            "gamma": BAD_GAMMA,
            "rng": not_a(0, np.random.RandomState(0), none=False),
        },
        good={"delta": st.floats(0, 1e6), "gamma": st.floats(1e-9, 1 - 1e-9)},
        finite=True,
    ),
    f"{P}.kgw_zscore": Spec(
        stamp.kgw_zscore,
        {"tokens": TOKENS, "key": 5, "vocab_size": 16, "gamma": 0.25},
        {
            "tokens": st.one_of(bad_index_array(TOKENS, 16), st.just([]), st.just([TOKENS])),
            "key": not_int(),
            "vocab_size": st.one_of(bad_int(2), st.just(15)),
            "gamma": BAD_GAMMA,
        },
        good={"gamma": st.floats(1e-9, 1 - 1e-9), "key": st.integers()},
        finite=True,
    ),
    f"{P}.make_versions": Spec(
        stamp.make_versions,
        {
            "templates": TEMPLATES,
            "grammar": G,
            "keys": [1, 2],
            "delta": 1.0,
            "gamma": 0.25,
            "seed": 0,
        },
        {
            "templates": st.one_of(bad_index_array(TEMPLATES, 5), st.just(TEMPLATES[0])),
            "grammar": BAD_GRAMMAR,
            "keys": st.sampled_from([[], 3, "12", [1.5], [None], None]),
            "delta": BAD_DELTA,
            "gamma": BAD_GAMMA,
            "seed": bad_seed(),
        },
    ),
    f"{P}.make_items": Spec(
        stamp.make_items,
        {"grammar": G, "n_items": 2, "n_private": 2, "delta": 1.0, "seed": 0, "gamma": 0.25},
        {
            "grammar": BAD_GRAMMAR,
            "n_items": bad_int(1),
            "n_private": bad_int(1),
            "delta": BAD_DELTA,
            "seed": bad_seed(),
            "gamma": BAD_GAMMA,
        },
    ),
    f"{P}.make_background": Spec(
        stamp.make_background,
        {"grammar": G, "n": 2, "seed": 0},
        {"grammar": BAD_GRAMMAR, "n": bad_int(1), "seed": bad_seed()},
    ),
    f"{P}.stamp_test": Spec(
        stamp.stamp_test,
        {"public_ppl": PUB, "private_ppls": PRIV, "clip_frac": 0.0},
        {
            "public_ppl": st.one_of(bad_array(PUB), st.just(PUB[:3]), st.just(PUB[:1])),
            "private_ppls": st.one_of(bad_array(PRIV), st.just(PRIV[:3]), st.just(PUB)),
            "clip_frac": bad_real(0.0, 0.5, high_open=True),
        },
        good={"clip_frac": st.floats(0, 0.25)},
        finite=True,
    ),
    f"{P}.split_public": Spec(
        stamp.split_public,
        {"versions": VERSIONS, "public_index": np.array([0, 2])},
        {
            "versions": st.one_of(
                bad_index_array(VERSIONS, None), st.just(VERSIONS[:1]), st.just(TEMPLATES)
            ),
            "public_index": st.one_of(
                bad_index_array(np.array([0, 2]), 3), st.just(np.array([0])), st.just(0)
            ),
        },
    ),
    f"{P}.effect_size": Spec(
        stamp.effect_size,
        {"public_ppl": PUB, "private_ppls": PRIV, "level": 0.95},
        {
            "public_ppl": st.one_of(bad_array(PUB), st.just(PUB[:3]), st.just(PUB[:1])),
            "private_ppls": st.one_of(bad_array(PRIV), st.just(PRIV[:3])),
            "level": BAD_LEVEL,
        },
        finite=True,
    ),
    f"{P}.token_logprobs": Spec(
        stamp.token_logprobs,
        lambda: {"model": _tiny_lm(), "sequences": TEMPLATES + 10, "batch_size": 2},
        {
            "model": not_a(),
            "sequences": st.one_of(
                bad_index_array(TEMPLATES + 10, 16, low=1), st.just(TOKENS), st.just(TEMPLATES)
            ),
            "batch_size": bad_int(1),
        },
        finite=True,
    ),
    f"{P}.perplexity_score": Spec(
        stamp.perplexity_score, {"logprobs": LOGP}, {"logprobs": BAD_LOGP}, finite=True
    ),
    f"{P}.min_k_prob": Spec(
        stamp.min_k_prob,
        {"logprobs": LOGP, "k": 0.2},
        {"logprobs": BAD_LOGP, "k": bad_real(0.0, 1.0, low_open=True)},
        finite=True,
    ),
    f"{P}.zlib_ratio": Spec(
        stamp.zlib_ratio,
        {"logprobs": LOGP, "sequences": TEMPLATES + 10},
        {
            "logprobs": BAD_LOGP,
            "sequences": st.one_of(
                bad_index_array(TEMPLATES + 10, None), st.just(TOKENS), st.just(VERSIONS)
            ),
        },
        finite=True,
    ),
    f"{P}.fpr_at_tpr": Spec(
        stamp.fpr_at_tpr,
        {"seen": PUB, "unseen": PUB + 1, "tpr": 0.5},
        {
            "seen": bad_array(PUB, shape=False),
            "unseen": bad_array(PUB, shape=False),
            "tpr": bad_probability(low_open=True),
        },
        finite=True,
    ),
    f"{P}.BigramLM": Spec(
        stamp.BigramLM,
        {"vocab_size": 16, "alpha": 0.1},
        {"vocab_size": bad_int(2), "alpha": bad_positive()},
    ),
    f"{P}.BigramLM.fit": Spec(
        stamp.BigramLM.fit,
        lambda: {"self": stamp.BigramLM(16), "sequences": TEMPLATES + 10},
        {"sequences": st.one_of(bad_index_array(TEMPLATES + 10, 16), st.just(TOKENS))},
        free=("self",),
    ),
    f"{P}.BigramLM.perplexity": Spec(
        stamp.BigramLM.perplexity,
        lambda: {"self": stamp.BigramLM(16), "sequences": TEMPLATES + 10},
        {"sequences": st.one_of(bad_index_array(TEMPLATES + 10, 16), st.just(TOKENS))},
        free=("self",),
        finite=True,
    ),
    # --- the real-LLM path, on a tiny random chat model
    f"{P}.llm.watermarking_config": Spec(
        llm.watermarking_config,
        {"key": 3, "delta": 1.0, "gamma": 0.25},
        {"key": bad_int(1), "delta": BAD_DELTA, "gamma": BAD_GAMMA},
    ),
    f"{P}.llm.llm_rephrase": Spec(
        llm.llm_rephrase,
        lambda: _lm(
            key=3, delta=1.0, gamma=0.25, temperature=0.7, max_new_tokens=2, batch_size=2, seed=0
        ),
        LM_BAD
        | {
            "key": bad_int(1),
            "delta": BAD_DELTA,
            "gamma": BAD_GAMMA,
            "temperature": bad_positive(),
            "max_new_tokens": bad_int(1),
            "batch_size": bad_int(1),
            "seed": bad_seed(),
        },
    ),
    f"{P}.llm.llm_versions": Spec(
        llm.llm_versions,
        lambda: _lm(keys=[3, 4], delta=1.0, gamma=0.25, progress=False, max_new_tokens=2),
        LM_BAD
        | {
            "keys": st.sampled_from([[3], [3, 3], [0, 1], [1.5, 2], 3, "34", None]),
            "delta": BAD_DELTA,
            "gamma": BAD_GAMMA,
        },
        free=("progress",),
    ),
    f"{P}.llm.llm_zscores": Spec(
        llm.llm_zscores,
        lambda: {
            "model_config": _chat()[0].config,
            "tokenizer": _chat()[1],
            "texts": ITEMS,
            "key": 3,
            "gamma": 0.25,
        },
        {
            "model_config": not_a(),
            "tokenizer": LM_BAD["tokenizer"],
            "texts": LM_BAD["texts"],
            "key": bad_int(1),
            "gamma": BAD_GAMMA,
        },
    ),
    f"{P}.llm.meaning_scores": Spec(
        llm.meaning_scores,
        {"encoder": _Encoder(), "originals": ITEMS, "versions": np.array([["w3"], ["w1 w0"]])},
        {
            "encoder": not_a(),
            "originals": st.sampled_from(["w3", [], ["w1"], None, [1, 2]]),
            "versions": st.sampled_from(
                [np.array([["w3"]]), np.array(["a", "b"]), np.array([[""], ["x"]]), None, 3]
            ),
        },
        finite=True,
    ),
}

CONSTANTS = {f"{P}.llm.REPHRASE_PROMPT"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
test_good_input_is_finite = good_input_test(SPECS)
