"""Bad-input suite of icml25.common.vlm (TinyVLM and its methods): see badinput.py."""

from functools import cache

import numpy as np
import torch
from badinput import (
    Spec,
    bad_choice,
    bad_index_array,
    bad_input_test,
    bad_int,
    bad_seed,
    not_none,
    valid_input_test,
)
from hypothesis import strategies as st

from icml25.common.vlm import ENCODERS, TinyVLM

P = "icml25.common.vlm"
IMG = 5
IDS = torch.tensor([[0, IMG, IMG, IMG, IMG, 3], [0, 1, 2, 3, 4, 6]])
IMAGES = torch.rand(2, 1, 1, 8, 8, generator=torch.Generator().manual_seed(0))
MASK = torch.zeros(2, 6, dtype=torch.bool)
MASK[:, -1] = True


@cache
def _model():
    return TinyVLM(
        12,
        IMG,
        image_shape=(1, 8, 8),
        encoder="patches",
        n_layer=1,
        n_embd=8,
        n_head=2,
        n_positions=12,
    )


def _bad_ids():
    return st.one_of(
        bad_index_array(IDS.numpy(), 12),
        st.just(IDS.float()),
        st.just(IDS[0]),
        st.just(torch.zeros(1, 13, dtype=torch.long)),  # longer than n_positions
        st.just(torch.tensor([[0, IMG, IMG, 3]])),  # placeholders not a multiple of 4
    )


def _bad_images():
    nan = IMAGES.clone()
    nan[0, 0, 0, 0, 0] = float("nan")
    return st.one_of(
        st.sampled_from([nan, IMAGES[0], IMAGES[:0], "abc", 3, [[1.0]]]),  # numpy arrays are fine
        st.just(torch.rand(2, 1, 1, 8, 7)),
        st.just(torch.rand(3, 1, 1, 8, 8)),
        st.just(np.array([["a"]])),
    )


def _with_images(**extra):
    return lambda: {"self": _model(), "input_ids": IDS, "images": IMAGES, **extra}


SPECS: dict[str, Spec] = {
    f"{P}.TinyVLM": Spec(
        TinyVLM,
        {
            "vocab_size": 12,
            "image_token_id": IMG,
            "image_shape": (1, 8, 8),
            "encoder": "patches",
            "n_image_tokens": 4,
            "n_layer": 1,
            "n_embd": 8,
            "n_head": 2,
            "n_positions": 12,
            "seed": 0,
            "cnn_width": 4,
        },
        {
            "vocab_size": st.one_of(bad_int(2), st.just(IMG)),
            "image_token_id": st.one_of(bad_int(1, 11), st.just(12)),
            "image_shape": st.sampled_from(
                [(1, 8), (1, 8, 7), (0, 8, 8), (1, 8, 8.0), "188", None]
            ),
            "encoder": bad_choice(ENCODERS),
            "n_image_tokens": st.one_of(bad_int(1), st.just(3), st.just(13)),
            "n_layer": bad_int(1),
            "n_embd": st.one_of(bad_int(1), st.just(7)),
            "n_head": st.one_of(bad_int(1), st.just(3)),
            "n_positions": st.one_of(bad_int(2), st.just(3)),
            "seed": bad_seed(),
            "cnn_width": bad_int(1),
        },
    ),
    f"{P}.TinyVLM.forward": Spec(
        TinyVLM.forward,
        _with_images(),
        {"input_ids": _bad_ids(), "images": _bad_images()},
        free=("self",),
        finite=True,
    ),
    f"{P}.TinyVLM.embed": Spec(
        TinyVLM.embed,
        _with_images(),
        {"input_ids": _bad_ids(), "images": _bad_images()},
        free=("self",),
        finite=True,
    ),
    f"{P}.TinyVLM.hidden_states": Spec(
        TinyVLM.hidden_states,
        _with_images(),
        {"input_ids": _bad_ids(), "images": _bad_images()},
        free=("self",),
        finite=True,
    ),
    f"{P}.TinyVLM.image_features": Spec(
        TinyVLM.image_features,
        lambda: {"self": _model(), "images": IMAGES},
        {
            "images": st.one_of(
                st.just(None),
                _bad_images().filter(lambda x: not (hasattr(x, "shape") and len(x) == 3)),
            )
        },
        free=("self",),
        finite=True,
    ),
    f"{P}.TinyVLM.sequence_logprob": Spec(
        TinyVLM.sequence_logprob,
        _with_images(target_mask=MASK),
        {
            "input_ids": _bad_ids(),
            "images": _bad_images(),
            "target_mask": st.sampled_from(
                [MASK.long(), MASK[:, :5], torch.ones(2, 6, dtype=torch.bool), [[True]], None]
            ),
        },
        free=("self",),
        finite=True,
    ),
    f"{P}.TinyVLM.generate": Spec(
        TinyVLM.generate,
        _with_images(max_new_tokens=2, eos_token_id=0, prompt_lengths=[6, 3]),
        {
            "input_ids": _bad_ids(),
            "images": _bad_images(),
            "max_new_tokens": st.one_of(bad_int(1), st.just(7)),  # 6 + 7 > n_positions
            "eos_token_id": not_none(bad_int(0, 11)),
            "prompt_lengths": st.sampled_from([[6], [0, 3], [6, 7], [6.0, 3.0], 6, "ab"]),
        },
        free=("self",),
        finite=True,
    ),
}

CONSTANTS = {f"{P}.ENCODERS"}

test_bad_input_is_rejected = bad_input_test(SPECS)
test_valid_input_runs = valid_input_test(SPECS)
