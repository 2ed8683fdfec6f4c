import sys
sys.path.insert(0,'/tmp/s18/cocknet19')
from exp import *
ap=argparse.ArgumentParser(); ap.add_argument('--train',nargs='+'); ap.add_argument('--val',nargs='+'); ap.add_argument('--epochs',type=int,default=10)
ap.add_argument('--lr',type=float,default=1e-3); ap.add_argument('--save',default='')
a=ap.parse_args()
torch.set_num_threads(1)
tm=tiltmap('tilts.txt')
x,s,m=loadrows(a.train); xv,sv,mv=loadrows(a.val)
cam=np.array([tm[int(v)] for v in m[:,SEED]],np.float32); camv=np.array([tm[int(v)] for v in mv[:,SEED]],np.float32)
use=(m[:,GROUP]<=1); usev=(mv[:,GROUP]<=1)
x,s,m,cam=x[use],s[use],m[use],cam[use]; xv,sv,mv,camv=xv[usev],sv[usev],mv[usev],camv[usev]
print('train rows',len(x),'cocked',int(m[:,0].sum()),'val rows',len(xv), 'val cal cocked', int(((mv[:,1]==1)&(mv[:,2]==1)).sum()))
n1=loadbin('/work/wt-cocknet19/vision/cocknet.bin'); n2=loadbin('/work/wt-cocknet19/vision/cocknet_up.bin')
p1=probs(n1,xv,sv); p2=probs(n2,xv,sv); ref=np.minimum(p1,p2)
def cutat(c): return np.where(c<3,.40,np.where(c<20,.45,np.where(c<30,.60,.65)))
rep('shipped',ref,mv,camv)
# shipped with the tilt cuts (cockCutAt), cal only meaningful
refc=ref-cutat(camv)+0.45
rep('shipped+tiltcuts',refc,mv,camv)
S=np.c_[s,cam/30.0].astype(np.float32); Sv=np.c_[sv,camv/30.0].astype(np.float32)
def warm(src, aug, seed=1):
    torch.manual_seed(seed); rng=np.random.default_rng(seed)
    net=T.Net(2,16,src.c1.out_channels,src.c2.out_channels,0,src.f1.out_features,3)
    with torch.no_grad():
        for a_,b_ in [(net.c1,src.c1),(net.c2,src.c2),(net.f2,src.f2)]:
            a_.weight.copy_(b_.weight); a_.bias.copy_(b_.bias)
        net.f1.weight.zero_(); net.f1.weight[:,:-1].copy_(src.f1.weight); net.f1.bias.copy_(src.f1.bias)
    opt=torch.optim.Adam(net.parameters(),lr=a.lr,weight_decay=1e-4); sch=torch.optim.lr_scheduler.CosineAnnealingLR(opt,a.epochs)
    lf=nn.BCEWithLogitsLoss(); xt=torch.from_numpy(x); st=torch.from_numpy(S); yt=torch.from_numpy(m[:,0].copy()); n=len(yt)
    for ep in range(a.epochs):
        net.train(); perm=torch.from_numpy(rng.permutation(n))
        for i in range(0,n,128):
            b=perm[i:i+128]
            if aug=='d8': xb=T.turn(xt[b],int(rng.integers(8)))
            else:
                xb=xt[b]
                if rng.integers(2): xb=torch.flip(xb,[3])
            loss=lf(net(xb,st[b]),yt[b]); opt.zero_grad(); loss.backward(); opt.step()
        sch.step()
    net.eval(); return net
w1=warm(n1,'d8'); q1=probs(w1,xv,Sv)
rep('warm-d8 alone @same',q1,mv,camv,ref=ref)
rep('warm-d8 alone @0.45',q1,mv,camv)
qq=np.minimum(q1,p2)
rep('min(warm-d8, up) @0.45',qq,mv,camv)
rep('min(warm-d8, up) @same',qq,mv,camv,ref=ref)
w2=warm(n2,'up'); q2=probs(w2,xv,Sv)
q=np.minimum(q1,q2)
rep('min(warm-d8, warm-up) @0.45',q,mv,camv)
rep('min(warm-d8, warm-up) @same',q,mv,camv,ref=ref)
rep('min(warm-d8, warm-up) @same-as-tiltcuts',q,mv,camv,ref=refc)
if a.save:
    torch.save(w1.state_dict(),a.save+'.d8.pt'); torch.save(w2.state_dict(),a.save+'.up.pt')
    np.save(a.save+'.val.npy', np.c_[q1,q2,p1,p2,camv,mv[:,1],mv[:,2]])
