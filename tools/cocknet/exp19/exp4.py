import sys, glob
sys.path.insert(0,'/tmp/s18/cocknet19')
from exp import *
ap=argparse.ArgumentParser(); ap.add_argument('--train',nargs='+'); ap.add_argument('--val',nargs='+'); ap.add_argument('--epochs',type=int,default=25)
ap.add_argument('--variants',default='ctl-d8,ctl-up,tilt-d8,tilt-up'); ap.add_argument('--save',default='w4')
a=ap.parse_args()
torch.set_num_threads(1)
tm=tiltmap('tilts.txt')
x,s,m=loadrows(a.train); xv,sv,mv=loadrows(a.val)
cam=np.array([tm[int(v)] for v in m[:,SEED]],np.float32); camv=np.array([tm[int(v)] for v in mv[:,SEED]],np.float32)
sd=m[:,SEED]; va=np.zeros(len(sd),bool)
for lo,hi in [(23800,24000),(24900,25000),(27700,28000)]: va|=(sd>=lo)&(sd<hi)
use=(m[:,GROUP]<=1)&~va; usev=(mv[:,GROUP]<=1)
x,s,m,cam=x[use],s[use],m[use],cam[use]; xv,sv,mv,camv=xv[usev],sv[usev],mv[usev],camv[usev]
print('train rows',len(x),'cocked',int(m[:,0].sum()),'val rows',len(xv),'val cal cocked',int(((mv[:,1]==1)&(mv[:,2]==1)).sum()),'val cal clean',int(((mv[:,1]==1)&(mv[:,2]==0)).sum()),flush=True)
n1=loadbin('/work/wt-cocknet19/vision/cocknet.bin'); n2=loadbin('/work/wt-cocknet19/vision/cocknet_up.bin')
p1=probs(n1,xv,sv); p2=probs(n2,xv,sv); ref=np.minimum(p1,p2)
def cutat(c): return np.where(c<3,.40,np.where(c<20,.45,np.where(c<30,.60,.65)))
refc=ref-cutat(camv)+0.45
rep('shipped',ref,mv,camv); rep('shipped+tiltcuts',refc,mv,camv)
S=np.c_[s,cam/30.0].astype(np.float32); Sv=np.c_[sv,camv/30.0].astype(np.float32)
def trainnet(extra, SS, aug, seed=1):
    torch.manual_seed(seed); rng=np.random.default_rng(seed)
    net=T.Net(2,16,4,8,0,16,extra)
    opt=torch.optim.Adam(net.parameters(),lr=3e-3,weight_decay=1e-4); sch=torch.optim.lr_scheduler.CosineAnnealingLR(opt,a.epochs)
    lf=nn.BCEWithLogitsLoss(); xt=torch.from_numpy(x); st=torch.from_numpy(SS); yt=torch.from_numpy(m[:,0].copy()); n=len(yt)
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
P={}
for v in a.variants.split(','):
    kind,aug=v.split('-')
    if kind=='ctl': net=trainnet(2,s,aug); P[v]=probs(net,xv,sv)
    else: net=trainnet(3,S,aug); P[v]=probs(net,xv,Sv)
    torch.save(net.state_dict(),'%s.%s.pt'%(a.save,v))
    rep(v+' alone @same',P[v],mv,camv,ref=ref); print(flush=True)
if 'ctl-d8' in P and 'ctl-up' in P:
    q=np.minimum(P['ctl-d8'],P['ctl-up']); rep('min(ctl) @0.45',q,mv,camv); rep('min(ctl) @same',q,mv,camv,ref=ref)
if 'tilt-d8' in P and 'tilt-up' in P:
    q=np.minimum(P['tilt-d8'],P['tilt-up']); rep('min(tilt) @0.45',q,mv,camv); rep('min(tilt) @same-as-shipped',q,mv,camv,ref=ref); rep('min(tilt) @same-as-tiltcuts',q,mv,camv,ref=refc)
    rep('tilt-d8 @same-as-tiltcuts',P['tilt-d8'],mv,camv,ref=refc)
np.save(a.save+'.val.npy', np.c_[[P[k] for k in P]+[p1,p2,camv,mv[:,1],mv[:,2]]].T if False else np.column_stack([P[k] for k in P]+[p1,p2,camv,mv[:,1],mv[:,2]]))
