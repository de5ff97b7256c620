"""Every word the figures show, in both languages: titles, axis labels, legends and notes.

Chinese text uses full-width punctuation and a space between Chinese and Latin words (none next
to full-width punctuation). English uses straight quotes: the CJK font's curly quotes are full-width.
Math is matplotlib mathtext (``$...$``). ``{name}`` fields are filled in by the figure.
"""

from __future__ import annotations

LABELS: dict[str, dict[str, dict[str, str]]] = {
    "common": {
        "query": {"zh": "Query（查询）", "en": "Query"},
        "key": {"zh": "Key（键）", "en": "Key"},
        "gloss": {"zh": "{token}", "en": "{token} ({gloss})"},
    },
    "worked_weights": {
        "title": {"zh": "“I love”的注意力权重", "en": "Attention weights of \"I love\""},
        "note": {"zh": "每一行是一个 Query 的分布，加起来等于 1", "en": "Each row is one query's distribution and sums to 1"},
    },
    "dot_variance": {
        "title": {"zh": "点积 $q\\cdot k$ 的方差随 $d_k$ 线性增长", "en": "The variance of $q\\cdot k$ grows like $d_k$"},
        "x": {"zh": "维度 $d_k$", "en": "Dimension $d_k$"},
        "y": {"zh": "方差", "en": "Variance"},
        "measured": {"zh": "实测 $\\mathrm{Var}[q\\cdot k]$", "en": "measured $\\mathrm{Var}[q\\cdot k]$"},
        "theory": {"zh": "理论值 $d_k$", "en": "theory: $d_k$"},
        "scaled": {"zh": "缩放后 $\\mathrm{Var}[q\\cdot k/\\sqrt{d_k}]$", "en": "scaled $\\mathrm{Var}[q\\cdot k/\\sqrt{d_k}]$"},
        "note": {"zh": "每个点：{n} 组随机的 $q$、$k$", "en": "Each point: {n} random pairs $q$, $k$"},
    },
    "softmax_saturation": {
        "title": {"zh": "三种缩放下的 Softmax（{n_keys} 个 Key）", "en": "Softmax under three scalings ({n_keys} keys)"},
        "max_weight": {"zh": "最大权重", "en": "Largest weight"},
        "jacobian": {"zh": "梯度大小（Jacobian 范数）", "en": "Gradient size (Jacobian norm)"},
        "x": {"zh": "维度 $d_k$", "en": "Dimension $d_k$"},
        "none": {"zh": "不缩放", "en": "no scaling"},
        "d_k": {"zh": "除以 $d_k$", "en": "divide by $d_k$"},
        "sqrt_d_k": {"zh": "除以 $\\sqrt{d_k}$", "en": "divide by $\\sqrt{d_k}$"},
        "one_hot": {"zh": "one-hot", "en": "one-hot"},
        "uniform": {"zh": "均匀分布", "en": "uniform"},
        "vanishing": {"zh": "梯度消失", "en": "vanishing gradient"},
        "no_focus": {"zh": "几乎均匀，失去选择性", "en": "nearly uniform: no focus"},
    },
    "asymmetry": {
        "title_a": {"zh": "注意力矩阵 $A$", "en": "Attention matrix $A$"},
        "title_at": {"zh": "它的转置 $A^T$", "en": "Its transpose $A^T$"},
        "note": {
            "zh": "{verb} → {noun}：{forward}，而 {noun} → {verb}：{backward}，所以 $A \\neq A^T$",
            "en": "{verb} → {noun}: {forward}, but {noun} → {verb}: {backward}, so $A \\neq A^T$",
        },
    },
    "self_vs_cross": {
        "title_self": {"zh": "Self-Attention\nQ、K 来自\n同一个序列", "en": "Self-attention\nQ and K from\none sequence"},
        "title_cross": {"zh": "Cross-Attention\nQ 来自 Decoder\nK 来自 Encoder", "en": "Cross-attention\nQ from the decoder\nK from the encoder"},
        "query_encoder": {"zh": "Query（Encoder）", "en": "Query (encoder)"},
        "query_decoder": {"zh": "Query（Decoder）", "en": "Query (decoder)"},
        "key_encoder": {"zh": "Key（Encoder）", "en": "Key (encoder)"},
    },
    "memory": {
        "title": {"zh": "注意力矩阵的显存\n（FP16，单头，单层）", "en": "Attention-matrix memory\n(FP16, one head, one layer)"},
        "x": {"zh": "序列长度 $n$（Token 数）", "en": "Sequence length $n$ (tokens)"},
        "y": {"zh": "显存", "en": "Memory"},
        "point": {"zh": "{n}：{size}", "en": "{n}: {size}"},
        "note": {"zh": "$n$ 翻倍，显存变为 4 倍", "en": "Double $n$, and the memory grows 4×"},
    },
    "it_animal": {
        "title": {"zh": "“it”的注意力落在哪里", "en": "Where \"it\" looks"},
        "subtitle": {"zh": "示意图：手工构造的权重，不是训练好的模型", "en": "Illustrative hand-built weights, not a trained model"},
        "x": {"zh": "“it”的注意力权重", "en": "Attention weight of \"it\""},
        "y": {"zh": "Key（句中的词）", "en": "Key (words of the sentence)"},
    },
    "pipeline": {
        "input": {"zh": "输入 $X$", "en": "Input $X$"},
        "q": {"zh": "$Q$ 查询", "en": "$Q$ query"},
        "k": {"zh": "$K$ 键", "en": "$K$ key"},
        "v": {"zh": "$V$ 值", "en": "$V$ value"},
        "output": {"zh": "输出：每个词的新向量", "en": "Output: a new vector per token"},
        "step1": {"zh": "第一步\n生成 Q、K、V", "en": "Step 1\nCompute Q, K, V"},
        "step2": {"zh": "第二步\n$QK^T$ 注意力分数", "en": "Step 2\nScores $QK^T$"},
        "step3": {"zh": "第三步\n缩放", "en": "Step 3\nScale"},
        "step4": {"zh": "第四步\nSoftmax", "en": "Step 4\nSoftmax"},
        "step5": {"zh": "第五步\n加权求和", "en": "Step 5\nWeighted sum"},
    },
    "tiled_memory": {
        "title": {"zh": "实测：一次注意力计算的峰值内存\n（$d = {d}$，float32）", "en": "Measured: peak memory of one attention call\n($d = {d}$, float32)"},
        "x": {"zh": "序列长度 $n$", "en": "Sequence length $n$"},
        "y": {"zh": "峰值内存（tracemalloc）", "en": "Peak memory (tracemalloc)"},
        "naive": {"zh": "普通注意力（存下 $n \\times n$ 矩阵）", "en": "Ordinary attention (keeps $n \\times n$)"},
        "tiled": {"zh": "分块注意力（块大小 {block}）", "en": "Tiled attention (blocks of {block})"},
        "matrix": {"zh": "一个 $n \\times n$ 的 float32 矩阵", "en": "One $n \\times n$ float32 matrix"},
        "ratio": {"zh": "$n$ = {n}：\n分块只用 {tiled}，\n是 {naive} 的 {ratio}", "en": "$n$ = {n}:\ntiled needs {tiled},\n{ratio} of {naive}"},
    },
    "attention_time": {
        "title": {"zh": "实测：一次注意力计算的时间\n（$d = {d}$，float32，CPU）", "en": "Measured: time of one attention call\n($d = {d}$, float32, CPU)"},
        "x": {"zh": "序列长度 $n$", "en": "Sequence length $n$"},
        "y": {"zh": "时间（中位数）", "en": "Time (median)"},
        "qkv": {"zh": "qkv（numpy）", "en": "qkv (numpy)"},
        "tiled": {"zh": "qkv 分块注意力", "en": "qkv tiled attention"},
        "torch": {"zh": "PyTorch（CPU）", "en": "PyTorch (CPU)"},
        "python": {"zh": "纯 Python 循环", "en": "Pure-Python loop"},
        "slope": {"zh": "斜率 $\\propto n^2$", "en": "slope $\\propto n^2$"},
        "note": {"zh": "{repeats} 次交替重复的中位数，{threads} 个线程", "en": "Median of {repeats} interleaved repeats, {threads} threads"},
        # When an implementation (the slow pure-Python loop) was timed fewer times than the rest.
        "note_fewer": {"zh": "{repeats} 次交替重复的中位数（{fewer}），{threads} 个线程",
                       "en": "Median of {repeats} interleaved repeats ({fewer}), {threads} threads"},
        "fewer": {"zh": "{name}只有 {repeats} 次", "en": "{name}: {repeats}"},
    },
    "kv_cache_sizes": {
        "title": {"zh": "KV Cache 的大小（FP16，批大小 1）", "en": "KV-cache size (FP16, batch of 1)"},
        "x": {"zh": "{n} 个 Token 的 KV Cache", "en": "KV cache for {n} tokens"},
        "k": {"zh": "K（键）", "en": "K (keys)"},
        "v": {"zh": "V（值）", "en": "V (values)"},
        "kind": {"zh": "{kind}，{kv_heads} 个 KV 头", "en": "{kind}, {kv_heads} KV heads"},
        "kind_one": {"zh": "{kind}，1 个 KV 头", "en": "{kind}, 1 KV head"},
        "hypothetical": {"zh": "{name}（假想）", "en": "{name} (hypothetical)"},
    },
    "learned_it": {
        "title": {"zh": "训练好的模型里，“it”的注意力落在哪里", "en": "Where \"it\" looks in the trained model"},
        "tired": {"zh": "……too tired", "en": "...too tired"},
        "wide": {"zh": "……too wide", "en": "...too wide"},
        "layer": {"zh": "第 {layer} 层", "en": "Layer {layer}"},
        "x": {"zh": "“it”的权重", "en": "Weight of \"it\""},
    },
    "learned_referent": {
        "title": {"zh": "第二个任务：“it”的注意力和 rollout", "en": "Second task: where \"it\" looks, and its rollout"},
        "tired": {"zh": "……too tired", "en": "...too tired"},
        "wide": {"zh": "……too wide", "en": "...too wide"},
        "layer": {"zh": "第 {layer} 层", "en": "Layer {layer}"},
        "rollout": {"zh": "rollout（两层）", "en": "Rollout (both layers)"},
        "x": {"zh": "“it”的权重", "en": "Weight of \"it\""},
    },
    "learned_training": {
        "title": {"zh": "训练过程：损失与留出集准确率（{seeds} 个种子）", "en": "Training: loss and held-out accuracy ({seeds} seeds)"},
        "median": {"zh": "中位数", "en": "median"},
        "loss": {"zh": "交叉熵损失", "en": "Cross-entropy loss"},
        "accuracy": {"zh": "留出集准确率", "en": "Held-out accuracy"},
        "chance": {"zh": "随机猜测 50%", "en": "chance: 50%"},
        "x": {"zh": "训练步数", "en": "Training step"},
    },
    "learned_snapshots": {
        "title": {"zh": "“it”这一行在训练中的变化", "en": "The row of \"it\" during training"},
        "layer": {"zh": "第 {layer} 层", "en": "Layer {layer}"},
        "step": {"zh": "第 {step} 步", "en": "step {step}"},
        "weight": {"zh": "“it”给这个词的权重", "en": "Weight \"it\" gives the word"},
    },
    "learned_scaling": {
        "title": {"zh": "三种缩放下的训练（$d_k = {d_k}$）", "en": "Training under three scalings ($d_k = {d_k}$)"},
        "none": {"zh": "不缩放（乘以 1）", "en": "scale 1"},
        "sqrt_d_k": {"zh": "除以 $\\sqrt{d_k}$", "en": "divide by $\\sqrt{d_k}$"},
        "d_k": {"zh": "除以 $d_k$", "en": "divide by $d_k$"},
        "adam": {"zh": "留出集准确率\n（Adam）", "en": "Held-out accuracy\n(Adam)"},
        "sgd": {"zh": "留出集准确率\n（SGD）", "en": "Held-out accuracy\n(SGD)"},
        "entropy": {"zh": "注意力熵\n（Adam）", "en": "Attention entropy\n(Adam)"},
        "x": {"zh": "训练步数", "en": "Training step"},
    },
}


def text(figure: str, lang: str) -> dict[str, str]:
    """All labels of `figure` (plus the common ones) in language `lang` ("zh" or "en").

    >>> text("worked_weights", "en")["query"]
    'Query'
    >>> text("memory", "zh")["point"].format(n="4,096", size="32 MiB")
    '4,096：32 MiB'
    """
    entries = {**LABELS["common"], **LABELS[figure]}
    missing = [key for key, translations in entries.items() if lang not in translations]
    if missing:
        raise ValueError(f"the labels of figure {figure!r} are not written in {lang!r}: {', '.join(missing)}")
    return {key: translations[lang] for key, translations in entries.items()}
