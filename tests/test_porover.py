"""Known-answer tests of icml25.porover (fast: tiny students, a few steps)."""

import copy
import math
from functools import cache

import numpy as np
import pandas as pd
import pytest
import torch

from icml25 import porover as po
from icml25.common.runtime import get_device

torch.set_num_threads(1)


@cache
def _world():
    return po.make_prompt_world({"benign": 40, "toxic": 40, "seemingly_toxic": 40}, seed=0)


@cache
def _tok():
    return po.build_tokenizer(_world())


def _student(seed=0):
    return po.make_student(_tok(), n_layer=1, n_embd=16, n_head=2, seed=seed)


# --- world, oracle, judges -----------------------------------------------------------------


def test_toxic_iff_harmful_object_and_labels_match_the_grammar():
    w = po.make_prompt_world({"benign": 300, "toxic": 300, "seemingly_toxic": 300}, seed=1)
    assert len(set(w.prompts)) == len(w.prompts) == 900
    for p, lab in zip(w.prompts, w.labels, strict=False):
        verb, obj = p.split()[3:5]
        assert po.label_prompt(p) == lab
        assert (lab == "toxic") == (obj in po.HARMFUL_OBJECTS)
        if lab == "seemingly_toxic":
            assert verb in po.TRIGGER_VERBS and obj in po.BENIGN_OBJECTS
        if lab == "toxic":
            assert verb in po.TRIGGER_VERBS + po.COVERT_VERBS
    with pytest.raises(ValueError, match="prompt"):
        po.label_prompt("how do i bake neighbor")


def test_render_classify_round_trip():
    for p in _world().prompts:
        for kind in po.KINDS:
            r = po.render_response(p, kind)
            assert po.classify_response(p, r) == kind
        verb, obj = p.split()[3:5]
        assert f"{verb} {obj}" in po.render_response(p, "comply")
    assert po.classify_response(_world().prompts[0], "um") == "other"


def test_oracle_policy_scores_one_and_f1():
    w = _world()
    best = ["redirect" if lab == "toxic" else "comply" for lab in w.labels]
    r = po.score_responses(
        w.prompts, [po.render_response(p, k) for p, k in zip(w.prompts, best, strict=False)]
    )
    assert r["safety"] == r["usefulness"] == r["helpfulness"] == r["f1"] == 1.0
    refuse = po.score_responses(w.prompts, [po.render_response(p, "refuse") for p in w.prompts])
    assert refuse["safety"] == 1.0 and refuse["usefulness"] == 0.0 and refuse["f1"] == 0.0
    assert po.f1_score(1, 1) == 1.0 and po.f1_score(0, 0) == 0.0
    assert po.f1_score(0.6, 0.3) == pytest.approx(2 * 0.18 / 0.9)


def test_quality_reward_is_blind_to_intent_and_safety_judge():
    tox = next(
        p for p, lab in zip(_world().prompts, _world().labels, strict=False) if lab == "toxic"
    )
    seem = next(
        p
        for p, lab in zip(_world().prompts, _world().labels, strict=False)
        if lab == "seemingly_toxic"
    )
    for p in (tox, seem):
        assert po.quality_reward(p, po.render_response(p, "comply")) == 1.0
    assert not po.safety_judge(tox, po.render_response(tox, "comply"))
    assert po.safety_judge(seem, po.render_response(seem, "comply"))
    assert po.safety_judge(tox, po.render_response(tox, "redirect"))


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_best_of_n_rate_matches_one_minus_one_minus_q_to_the_n(n):
    q = po.TEACHER_PROFILES["advanced"]["seemingly_toxic"]["comply"]
    prompts = po.make_prompt_world({"seemingly_toxic": 1500}, seed=2).prompts
    cands = po.Teacher("advanced", seed=n).sample(prompts, n)

    def complies(p, c):
        return po.classify_response(p, c) == "comply"

    best = po.select_best_of_n(prompts, cands, po.quality_reward, complies)
    rate = np.mean([b is not None for b in best])
    expected = 1 - (1 - q) ** n
    sigma = math.sqrt(expected * (1 - expected) / len(prompts))
    assert abs(rate - expected) <= 3 * sigma + 1e-9


def test_select_best_of_n_ties_first_and_none():
    out = po.select_best_of_n(
        ["a", "b"],
        [["x1", "y", "x2"], ["z"]],
        lambda p, c: float(c[0] == "x"),
        lambda p, c: c != "z",
    )
    assert out == ["x1", None]


# --- DPO -----------------------------------------------------------------------------------


def test_dpo_loss_log2_and_zero_margins_when_policy_is_ref_and_closed_form():
    lp = torch.tensor([-3.0, -1.5, -7.0])
    lr_ = torch.tensor([-2.0, -4.0, -0.5])
    loss, margins = po.dpo_loss(lp, lr_, lp.clone(), lr_.clone(), beta=0.1)
    assert loss.item() == pytest.approx(math.log(2), abs=1e-6)
    assert torch.all(margins == 0)
    rc, rr = torch.tensor([-2.0, -2.0, -6.0]), torch.tensor([-2.5, -3.0, -1.0])
    loss, margins = po.dpo_loss(lp, lr_, rc, rr, beta=0.5)
    delta = (lp - rc) - (lr_ - rr)
    assert torch.allclose(margins, 0.5 * delta)
    assert loss.item() == pytest.approx(float(np.mean(np.log1p(np.exp(-0.5 * delta.numpy())))))


def _pairs(n=4, words=None):
    seem = [
        p
        for p, lab in zip(_world().prompts, _world().labels, strict=True)
        if lab == "seemingly_toxic" and (words is None or len(p.split()) == words)
    ]
    return [
        po.PreferencePair(p, po.render_response(p, "comply"), po.render_response(p, "refuse"))
        for p in seem[:n]
    ]


def test_one_dpo_step_makes_the_margin_positive_and_ref_is_untouched():
    policy = _student()
    ref = copy.deepcopy(policy)
    before = copy.deepcopy(ref.state_dict())
    tok, pairs = _tok(), _pairs(1)
    res = po.dpo(policy, ref, tok, pairs, steps=1, lr=1e-2, sft_weight=0.0, eval_every=1)
    assert res.history["margin"].iloc[0] == pytest.approx(0.0, abs=1e-6)
    assert res.history["loss"].iloc[0] == pytest.approx(math.log(2), abs=1e-6)
    assert res.history["margin"].iloc[-1] > 0
    assert set(res.checkpoints) == {0, 1}
    for k, v in ref.state_dict().items():
        assert torch.equal(v, before[k])


def test_two_response_bandit_slope_and_no_finite_minimiser():
    beta, g0 = 0.1, 0.3
    for g_val in (-2.0, 0.0, 0.7, 3.0):
        g = torch.tensor(g_val, dtype=torch.float64, requires_grad=True)
        pc, pr = torch.nn.functional.logsigmoid(g), torch.nn.functional.logsigmoid(-g)
        rc = torch.nn.functional.logsigmoid(torch.tensor(g0, dtype=torch.float64))
        rr = torch.nn.functional.logsigmoid(torch.tensor(-g0, dtype=torch.float64))
        loss, _ = po.dpo_loss(pc[None], pr[None], rc[None], rr[None], beta=beta)
        loss.backward()
        slope = -beta * torch.sigmoid(torch.tensor(-beta * (g_val - g0), dtype=torch.float64))
        assert g.grad.item() == pytest.approx(slope.item(), abs=1e-6)
    grid = torch.linspace(-5, 30, 200, dtype=torch.float64)
    for sft_weight in (0.0, 1.0):
        dpo_part = -torch.nn.functional.logsigmoid(beta * (grid - g0))
        total = dpo_part - sft_weight * torch.nn.functional.logsigmoid(grid)
        assert torch.all(torch.diff(total) < 0)  # decreasing in g: no finite minimiser


def test_select_by_containment():
    h = pd.DataFrame(
        {
            "step": [0, 10, 20, 30],
            "safety": [0.95, 0.94, 0.80, 0.93],
            "usefulness": [0.2, 0.5, 0.9, 0.5],
        }
    )
    row = po.select_by_containment(h, 0.95, 0.02)
    assert int(row["step"]) == 10
    assert int(po.select_by_containment(h, 0.95, 0.2)["step"]) == 20
    with pytest.raises(ValueError, match="tau"):
        po.select_by_containment(h, 0.95, -0.1)


# --- student -------------------------------------------------------------------------------


def test_sft_learns_and_sequence_logprob_counts_eos():
    tok, m = _tok(), _student()
    w = _world()
    comps = [po.render_response(p, "refuse") for p in w.prompts]
    before = po.sequence_logprob(m, tok, w.prompts[:5], comps[:5])
    losses = po.sft(m, tok, w.prompts, comps, steps=30, lr=1e-2)
    after = po.sequence_logprob(m, tok, w.prompts[:5], comps[:5])
    assert losses[-1] < losses[0] and np.all(after > before)
    assert po.generate(m, tok, w.prompts[:3]) == [comps[0]] * 3
    # 6 refusal words + EOS: the log-probability is a sum of 7 terms
    ids, att, comp = __import__("icml25.porover.student", fromlist=["_batch"])._batch(
        tok, w.prompts[:1], comps[:1]
    )
    assert int(comp.sum()) == 7


def test_expected_rates_match_sampled_rates_within_three_sigma():
    tok = _tok()
    m = _student(seed=3)
    w = _world()
    mix = [po.render_response(p, k) for p in w.prompts for k in ("comply", "refuse")]
    po.sft(m, tok, [p for p in w.prompts for _ in range(2)], mix, steps=40, lr=1e-2)
    expected = po.evaluate(m, tok, w.prompts, "expected")
    draws = 20
    sampled = [
        po.score_responses(w.prompts, po.generate(m, tok, w.prompts, do_sample=True, seed=s))
        for s in range(draws)
    ]
    for key, n_prompts in (("safety", 40), ("usefulness", 40), ("helpfulness", 80)):
        mean = np.mean([s[key] for s in sampled])
        p = expected[key]
        sigma = math.sqrt(max(p * (1 - p), 1e-4) / (n_prompts * draws))
        assert abs(mean - p) <= 3 * sigma + 0.01, key


def test_build_porover_pairs_counts_asd():
    tok, m = _tok(), _student()
    w = _world()
    po.sft(m, tok, w.prompts, [po.render_response(p, "refuse") for p in w.prompts], 30, lr=1e-2)
    pairs = po.build_porover_pairs(
        m, tok, po.Teacher("advanced", 0), w.subset("seemingly_toxic"), w.subset("toxic"), 0.5
    )
    over = [p for p in pairs if p.source == "overrefusal"]
    asd = [p for p in pairs if p.source == "asd"]
    assert len(over) >= 30 and abs(len(asd) - round(0.5 * len(over))) <= 1
    for p in over:
        assert po.classify_response(p.prompt, p.chosen) == "comply"
        assert po.classify_response(p.prompt, p.rejected) != "comply"
    for p in asd:
        assert po.safety_judge(p.prompt, p.chosen) and not po.safety_judge(p.prompt, p.rejected)


# --- TRL cross-check -------------------------------------------------------------------------


def test_dpo_first_step_matches_trl_dpo_trainer(tmp_path, monkeypatch):
    """Our first-step loss (sigmoid + NLL on chosen) and margins against TRL's DPOTrainer."""
    pytest.importorskip("trl")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    # prompts of one length: TRL pads the prompts on the left, which shifts GPT-2's positions
    tok, pairs = _tok(), _pairs(8, words=6)
    assert len(pairs) == 8
    policy, ref = _student(seed=0), _student(seed=1)
    ours = po.dpo(copy.deepcopy(policy), ref, tok, pairs, steps=1, batch_size=8, lr=1e-9)
    rows = [
        {"prompt": "<eos> " + p.prompt, "chosen": " " + p.chosen, "rejected": " " + p.rejected}
        for p in pairs
    ]
    args = DPOConfig(
        output_dir=str(tmp_path),
        max_steps=1,
        per_device_train_batch_size=8,
        learning_rate=1e-9,
        beta=0.1,
        loss_type=["sigmoid", "sft"],
        loss_weights=[1.0, 1.0],
        report_to=[],
        logging_steps=1,
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    trainer = DPOTrainer(
        model=policy,
        ref_model=ref,
        processing_class=tok,
        train_dataset=Dataset.from_list(rows),
        args=args,
    )
    trainer.train()
    log = trainer.state.log_history[0]
    assert log["loss"] == pytest.approx(ours.history["loss"].iloc[0], rel=1e-4)
    # margins are differences of summed log-probabilities near -60 (cancellation): float32
    # noise of the two implementations' different batch shapes shows at 1e-4
    assert log["rewards/margins"] == pytest.approx(ours.history["margin"].iloc[0], abs=5e-4)
    assert abs(ours.history["margin"].iloc[0]) > 1e-3  # policy differs from ref


# --- data sets and devices ----------------------------------------------------------------


def test_split_world_sets_are_disjoint_with_the_sizes_and_labels():
    parts = po.split_world(0)
    seen = set()
    for name, per_label in parts.items():
        for label, prompts in per_label.items():
            assert len(prompts) == po.SIZES[label][po.SETS.index(name)]
            assert {po.label_prompt(p) for p in prompts} <= {label}
            assert not seen & set(prompts)
            seen |= set(prompts)
    assert po.split_world(0) == parts and po.split_world(1) != parts
    assert len(po.split_world(0, mult=2)["test"]["toxic"]) == 2 * po.SIZES["toxic"][4]


def test_teacher_answers_judge_drops_unsafe_and_best_of_n_is_safe():
    toxic = po.split_world(0)["toxic_sft"]["toxic"]
    raw = po.teacher_answers("old", toxic, 1, seed=3, judge=False)
    judged = po.teacher_answers("old", toxic, 1, seed=3)
    assert all(r is not None for r in raw)
    for p, r, j in zip(toxic, raw, judged, strict=True):
        assert j == (r if po.safety_judge(p, r) else None)
    assert any(j is None for j in judged)
    assert any(not po.safety_judge(p, r) for p, r in zip(toxic, raw, strict=True))
    best = po.teacher_answers("advanced", toxic, 8, seed=3)
    assert all(b is None or po.safety_judge(p, b) for p, b in zip(toxic, best, strict=True))
    assert sum(b is not None and po.classify_response(p, b) == "redirect"
               for p, b in zip(toxic, best, strict=True)) > 0.9 * len(toxic)  # fmt: skip


def test_student_lives_on_the_given_device_and_every_function_follows_it():
    tok = _tok()
    w = _world()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for dev in devices:
        m = po.make_student(tok, n_layer=1, n_embd=16, n_head=2, seed=0, device=dev)
        assert next(m.parameters()).device.type == dev
        comps = [po.render_response(p, "refuse") for p in w.prompts]
        po.sft(m, tok, w.prompts, comps, steps=2)
        lp = po.sequence_logprob(m, tok, w.prompts[:2], comps[:2])
        assert isinstance(lp, np.ndarray) and np.isfinite(lp).all()
        assert set(po.evaluate(m, tok, w.prompts)) >= {"safety", "usefulness"}
        assert len(po.generate(m, tok, w.prompts[:2], do_sample=True)) == 2
        seem = [p for p in w.prompts if po.label_prompt(p) == "seemingly_toxic"]
        pairs = [po.PreferencePair(p, po.render_response(p, "comply"), comps[0]) for p in seem]
        ref = copy.deepcopy(m)
        res = po.dpo(m, ref, tok, pairs, steps=2, eval_prompts=w.prompts, eval_every=1)
        assert len(res.history) == 3 and next(ref.parameters()).device.type == dev
    default = po.make_student(tok, n_layer=1, n_embd=16, n_head=2, seed=0)
    assert next(default.parameters()).device == torch.device(get_device())
    # the seed fixes the weights whatever the device (initialised on the CPU)
    a = po.make_student(tok, n_layer=1, n_embd=16, n_head=2, seed=5, device="cpu")
    b = po.make_student(tok, n_layer=1, n_embd=16, n_head=2, seed=5, device=devices[-1])
    assert all(torch.equal(x, y.cpu()) for x, y in zip(a.parameters(), b.parameters(), strict=True))


def test_toxic_data_arms_are_paired_and_differ_only_in_toxic_completions():
    parts, arms = po.toxic_data_arms(0)
    assert tuple(arms) == po.ARMS
    prompts = arms["old"][0]
    assert all(arms[a][0] == prompts for a in po.ARMS)
    general = set(sum(parts["general"].values(), []))
    n_gen = sum(p in general for p in prompts)
    assert prompts[:n_gen] == [p for p in prompts if p in general]
    assert all(arms[a][1][:n_gen] == arms["old"][1][:n_gen] for a in po.ARMS)
    tox = list(zip(prompts[n_gen:], arms["old"][1][n_gen:], strict=True))
    assert all(po.safety_judge(p, c) for p, c in tox) and len(tox) > 150
    kinds = [po.classify_response(p, c) for p, c in zip(prompts, arms["advanced"][1], strict=True)]
    assert kinds[n_gen:].count("redirect") > kinds[n_gen:].count("refuse")
    raw = zip(prompts[n_gen:], arms["no judge"][1][n_gen:], strict=True)
    assert not all(po.safety_judge(p, c) for p, c in raw)


def test_large_config_code_path_runs_on_a_few_prompts():
    """CPU smoke test of the notebooks' ``large`` configuration (``CONFIG["large"]``: mult 5,
    N = 16, a 4-layer student of width 128): its world, a few SFT and DPO steps on a few of its
    prompts, finite losses and rates. It catches a crash, not a result: ``large`` is untested."""
    parts = po.split_world(0, mult=5)
    for name, i in (("general", 0), ("dpo", 2), ("test", 4)):
        assert len(parts[name]["seemingly_toxic"]) == 5 * po.SIZES["seemingly_toxic"][i]
    tok = po.build_tokenizer()
    m = po.make_student(tok, n_layer=4, n_embd=128, seed=0, device="cpu")
    assert (m.config.n_layer, m.config.n_embd, m.config.vocab_size) == (4, 128, len(tok))
    prompts = parts["general"]["benign"][:4] + parts["toxic_sft"]["toxic"][:4]
    keep = [
        (p, a)
        for p, a in zip(prompts, po.teacher_answers("advanced", prompts, 16, 0), strict=True)
        if a is not None
    ]
    losses = po.sft(m, tok, *map(list, zip(*keep, strict=True)), steps=2, batch_size=4, seed=0)
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)
    pairs = po.build_porover_pairs(
        m,
        tok,
        po.Teacher("advanced", 10),
        parts["dpo"]["seemingly_toxic"][:6],
        parts["dpo"]["toxic"][:6],
        0.5,
        n_samples=16,
        seed=0,
    )
    assert pairs and len(pairs) <= 9
    ref = copy.deepcopy(m)
    val = parts["val"]["toxic"][:3] + parts["val"]["seemingly_toxic"][:3]
    res = po.dpo(m, ref, tok, pairs, steps=2, batch_size=4, seed=0, eval_prompts=val, eval_every=1)
    assert list(res.history["step"]) == [0, 1, 2] and sorted(res.checkpoints) == [0, 1, 2]
    assert len(res.losses) == 2 and all(math.isfinite(x) for x in res.losses)
    rates = res.history[["safety", "usefulness"]].to_numpy()
    assert np.isfinite(rates).all() and ((rates >= 0) & (rates <= 1)).all()
    sel = po.select_by_containment(res.history, float(res.history["safety"].iloc[0]), 0.03)
    assert int(sel["step"]) in res.checkpoints
