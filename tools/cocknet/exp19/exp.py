import sys, struct, argparse
sys.path.insert(0,'/tmp/s18/cocknet19/wiptrain')
import numpy as np, torch, torch.nn as nn
import train as T
LABEL, MODE, GROUP, SEED = 0,1,2,3
def loadrows(paths):
    nin=16*16*2; row=nin+2+10
    fs=[np.fromfile(p,dtype='<f4') for p in paths]
    a=np.concatenate([f[:len(f)//row*row].reshape(-1,row) for f in fs])
    return a[:,:nin].reshape(-1,2,16,16).copy(), a[:,nin:nin+2].copy(), a[:,nin+2:].copy()
def loadbin(path):
    d=open(path,'rb').read(); assert d[:6]==b'DWCK2\n'
    sz=struct.unpack('<8I',d[6:38]); side,ch,span,core,c1,c2,c3,hid=sz
    T.EXTRA=2
    net=T.Net(ch,side,c1,c2,c3,hid); w=np.frombuffer(d[38:],dtype='<f4'); o=0
    ts=[net.c1.weight,net.c1.bias,net.c2.weight,net.c2.bias]+([net.c3.weight,net.c3.bias] if c3 else [])+[net.f1.weight,net.f1.bias,net.f2.weight,net.f2.bias]
    with torch.no_grad():
        for t in ts:
            n=t.numel(); t.copy_(torch.from_numpy(w[o:o+n].copy()).reshape(t.shape)); o+=n
    assert o==len(w); net.eval(); return net
def probs(net,x,s):
    with torch.no_grad(): return torch.sigmoid(net(torch.from_numpy(x),torch.from_numpy(s))).numpy()
def tiltmap(fn):
    m={}
    for l in open(fn):
        a,b=l.split(); m[int(a)]=float(b)
    return m
def rep(name,p,m,cam,cut=None,ref=None):
    out=[]
    for mode in (1,0):
        sel=(m[:,MODE]==mode); cl=sel&(m[:,GROUP]==0); co=sel&(m[:,GROUP]==1)
        if ref is not None:
            fr=(ref[cl]>=0.45).mean()
            c=np.sort(p[cl])[min(cl.sum()-1,int((1-fr)*cl.sum()))]
        else: c=0.45; fr=None
        s='%s %s: cut %.3f recall %.1f%% false %.2f%%'%(name,'cal' if mode else 'unc',c,100*(p[co]>c).mean(),100*(p[cl]>c).mean())
        for lo,hi in [(0,3),(3,20),(20,40)]:
            b=(cam>=lo)&(cam<hi)
            s+=' | cam%d-%d %.1f/%.2f'%(lo,hi,100*(p[co&b]>c).mean(),100*(p[cl&b]>c).mean())
        out.append(s)
    print('\n'.join(out))
