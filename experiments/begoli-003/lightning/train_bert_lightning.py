"""Fine-tune-style training of BERT-base (masked LM) under PyTorch Lightning's
SimpleProfiler, as paper 003 (Begoli et al.) profiled it: batch 4, sequence
512, one GPU, a given number of DataLoader workers. Writes Lightning's own
profiler report (fit-<name>.txt) into --out. The model is built from a
config (no download); the data are random token ids made per item in the
Dataset, so 'get train batch' is the cost of making and collating them in
the loader, not storage I/O as in the paper.

    python3 train_bert_lightning.py --workers 2 --steps 200 --out DIR --name w2
"""
import argparse, os, time
import torch
import lightning as L
from lightning.pytorch.profilers import SimpleProfiler
from transformers import BertConfig, BertForMaskedLM


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab):
        self.n, self.seq, self.vocab = n, seq, vocab
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randint(0, self.vocab, (self.seq,), generator=g)


class Bert(L.LightningModule):
    def __init__(self, seq, vocab):
        super().__init__()
        cfg = BertConfig(num_hidden_layers=12, hidden_size=768, num_attention_heads=12,
                         intermediate_size=3072, max_position_embeddings=max(512, seq),
                         vocab_size=vocab)
        self.model = BertForMaskedLM(cfg)
    def training_step(self, ids, i):
        return self.model(input_ids=ids, labels=ids).loss
    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--vocab", type=int, default=30522)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--out", required=True)
    p.add_argument("--name", required=True)
    a = p.parse_args()
    torch.manual_seed(0)
    os.makedirs(a.out, exist_ok=True)
    dl = torch.utils.data.DataLoader(Tokens(a.batch * a.steps, a.seq, a.vocab), batch_size=a.batch,
                                     num_workers=a.workers, pin_memory=True, drop_last=True)
    model = Bert(a.seq, a.vocab)
    prof = SimpleProfiler(dirpath=a.out, filename=a.name, extended=True)
    trainer = L.Trainer(accelerator="gpu", devices=1, max_epochs=1, max_steps=a.steps, profiler=prof,
                        logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, precision="32-true")
    t0 = time.perf_counter()
    trainer.fit(model, dl)
    print(f"{a.name}: workers {a.workers} steps {a.steps} fit {time.perf_counter() - t0:.2f} s "
          f"params {sum(q.numel() for q in model.parameters())}", flush=True)


if __name__ == "__main__":
    main()
